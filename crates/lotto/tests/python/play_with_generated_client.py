"""A client developer's first session, through a client generated from openapi.yaml with
openapi-python-client (issue 36, the contract): register, log in, deposit through the sandbox,
play a blackjack round to its end and a craps roll with a pass bet. Every call goes through the
generated functions and models; nothing is sent by hand.

    python3 play_with_generated_client.py <package dir> <package name> <base url> <email>

Prints one JSON line: what the round and the roll did, by the generated models' fields, for the
test that runs it to check against the API.
"""

import datetime
import importlib
import json
import sys
import time
import uuid

package_dir, package_name, base_url, email = sys.argv[1:5]
sys.path.insert(0, package_dir)
client_module = importlib.import_module(package_name)


def generated(path):
    return importlib.import_module(f"{package_name}.{path}")


models = generated("models")
players = generated("api.players")
sessions = generated("api.sessions")
blackjack = generated("api.blackjack")
craps = generated("api.craps")
importlib.import_module(f"{package_name}.api.players.register")


def answer(response, *statuses):
    """The parsed body of an answer with one of `statuses`, or the problem, loudly."""
    if response.status_code not in statuses:
        raise SystemExit(f"{response.status_code}: {response.content.decode()}")
    return response.parsed


def api(path):
    return importlib.import_module(f"{package_name}.api.{path}")


PASSWORD = "correct horse battery staple"
anonymous = client_module.Client(base_url=base_url)
registration = models.Registration(email=email, password=PASSWORD, date_of_birth=datetime.date(1990, 5, 17))
player = answer(api("players.register").sync_detailed(client=anonymous, body=registration), 201)
login = answer(
    api("sessions.login").sync_detailed(client=anonymous, body=models.PlayerLogin(email=email, password=PASSWORD)),
    201,
)
client = client_module.AuthenticatedClient(base_url=base_url, token=login.access_token)

deposit = answer(
    api("players.deposit_to_wallet").sync_detailed(
        client=client,
        body=models.PaymentRequest(amount=10_000, currency=models.PaymentRequestCurrency.USD),
        idempotency_key=str(uuid.uuid4()),
    ),
    202,
)
for _ in range(100):
    payment = answer(api("players.get_payment").sync_detailed(deposit.id, client=client), 200)
    if payment.state == models.PaymentState.SUCCEEDED:
        break
    time.sleep(0.1)
else:
    raise SystemExit("the sandbox did not confirm the deposit")

# Blackjack: a $10 spot, then the decision the round allows until it is settled (stand where
# it may; decline insurance when offered).
six_decks = models.OpenTable(decks=models.OpenTableDecks.VALUE_6)
table = answer(api("blackjack.open_table").sync_detailed(client=client, body=six_decks), 201)
round_ = answer(
    api("blackjack.deal").sync_detailed(
        table.id,
        client=client,
        body=models.DealRequest(spots=[models.SpotBet(wager=1_000)]),
        idempotency_key=str(uuid.uuid4()),
    ),
    201,
)
decisions = []
while round_.state == models.RoundViewState.PLAYING:
    allowed = {a.action.value: a for a in round_.allowed_actions}
    if "decline_insurance" in allowed:
        action = models.ActionRequest(
            action=models.ActionAction.DECLINE_INSURANCE, step=round_.step, spot=allowed["decline_insurance"].spot
        )
    elif "stand" in allowed:
        action = models.ActionRequest(action=models.ActionAction.STAND, step=round_.step)
    else:
        raise SystemExit(f"no decision to make in {sorted(allowed)}")
    decisions.append(action.action.value)
    round_ = answer(api("blackjack.act").sync_detailed(round_.id, client=client, body=action), 200)

# Craps: $5 on the pass line, and one roll.
session = answer(api("craps.open_session").sync_detailed(client=client, body=models.OpenCrapsSession()), 201)
bet = models.Change(change=models.ChangeChange.PLACE, bet=models.BetBet.PASS, amount_cents=500)
play = answer(
    api("craps.roll").sync_detailed(
        session.id,
        client=client,
        body=models.CrapsPlayRequest(changes=[bet], expected_rolls=session.rolls),
        idempotency_key=str(uuid.uuid4()),
    ),
    200,
    201,
)
report = play.result.roll
print(
    json.dumps(
        {
            "player": str(player.id),
            "round": str(round_.id),
            "round_state": round_.state.value,
            "decisions": decisions,
            "staked_cents": round_.staked_cents,
            "returned_cents": round_.returned_cents,
            "craps_session": str(session.id),
            "dice": [report.roll.die1, report.roll.die2],
            "total": report.total,
            "pass_bet": [o.to_dict() for o in report.outcomes if o.bet == models.BetBet.PASS],
            "on_layout_cents": play.session.on_layout_cents,
            "balance_after_cents": play.result.balance_after_cents,
        }
    )
)
