"""A client developer's first session, through a client generated from openapi.yaml with
openapi-python-client (issue 36, the contract): register, confirm the address with the mailed
link (read from the outbox with a staff member's token), log in, have the identity verified by
the sandbox (its hosted page opened as a browser opens it), be located in the state by the
sandbox geolocation provider, deposit through the sandbox, play a
blackjack round to its end and a craps roll with a pass bet. Every API call goes through the
generated functions and models; nothing is sent by hand.

    python3 play_with_generated_client.py <package dir> <package name> <base url> <email> <staff token>

Prints one JSON line: what the round and the roll did, by the generated models' fields, for the
test that runs it to check against the API.
"""

import datetime
import importlib
import json
import sys
import time
import urllib.request
import uuid

package_dir, package_name, base_url, email, staff_token = sys.argv[1:6]
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
accepted = answer(api("players.register").sync_detailed(client=anonymous, body=registration), 202)
assert accepted.email == email, accepted
staff = client_module.AuthenticatedClient(base_url=base_url, token=staff_token)
outbox = answer(api("administration.mail_outbox").sync_detailed(client=staff, recipient=email), 200)
link = next(m.body for m in outbox.items if m.kind == "verify_email")
token = link[link.index("token=") + 6 :].split()[0]
confirmed = answer(
    api("players.verify_email").sync_detailed(client=anonymous, body=models.EmailVerification(token=token)), 200
)
login = answer(
    api("sessions.login").sync_detailed(client=anonymous, body=models.PlayerLogin(email=email, password=PASSWORD)),
    201,
)
client = client_module.AuthenticatedClient(base_url=base_url, token=login.access_token)

# No money moves before the identity is verified: the file goes to the provider, the player
# finishes on its page (the sandbox's "approve" link), its webhook reports the decision.
home = models.Address(line1="100 SW Main St", city="Topeka", region="KS", postal_code="66603")
file = models.IdentitySubmission(legal_name="Pia Doe", address=home, phone="+1 785 555 0100", ssn_last4="6789")
submitted = answer(api("players.submit_identity").sync_detailed(client=client, body=file), 202)
page = submitted.verification_url.replace("http://localhost:8080", base_url)
with urllib.request.urlopen(f"{page}/approve") as opened:
    assert opened.status == 200, opened.status
for _ in range(100):
    identity = answer(api("players.my_identity").sync_detailed(client=client), 200)
    if identity.state.value != "pending":
        break
    time.sleep(0.1)
assert identity.state.value == "verified", identity

# No online stake without a location check of this login: the device kit's packet (the
# sandbox's "in the state") checked by the geolocation provider.
located = answer(
    api("players.check_location").sync_detailed(client=client, body=models.LocationCheckRequest(packet="sandbox_inside")),
    201,
)
assert located.result == models.LocationResult.INSIDE, located

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
            "player": login.subject,
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
