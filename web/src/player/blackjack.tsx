// The blackjack table: open a table, place the wager and side wagers on a spot, and play the
// round with only the decisions the round allows now (the API lists them); the Blazing 7's pot
// is shown as it grows. Recall lists the last rounds (blackjack and I Luv Suits) with every card
// and decision, and the last Keno tickets.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, centsOf, dollars, must, newKey, publicApi, type Schemas } from "../shared/session";
import { Card, Field, HiddenCard, ProblemBanner, useAction, useLoad } from "../shared/ui";

type AllowedAction = Schemas["AllowedAction"];
type ActionRequest = Schemas["ActionRequest"];

const ACTION_NAMES: Record<Schemas["AllowedActionKind"], string> = {
  hit: "Hit",
  stand: "Stand",
  double: "Double",
  split: "Split",
  insurance: "Insurance",
  decline_insurance: "No insurance",
  even_money: "Even money",
};

export function BlackjackTable(props: { onMoney: () => void; resume?: Schemas["BlackjackInPlay"] | undefined }): JSX.Element {
  const [decks, setDecks] = useState<2 | 6>(props.resume?.decks === 2 ? 2 : 6);
  // A hand left in play is shown where it stands, at its own table.
  const [table, setTable] = useState<{ id: string } | null>(props.resume ? { id: props.resume.table_id } : null);
  const [wager, setWager] = useState("10");
  const [trilux, setTrilux] = useState("0");
  const [blazing, setBlazing] = useState(false);
  const [round, setRound] = useState<Schemas["RoundView"] | null>(props.resume?.round ?? null);
  const meter = useLoad(() => must(publicApi.GET("/v1/blackjack/progressive")), [round?.state]);
  const act = useAction();
  const deal = () =>
    act.run(async () => {
      const cents = centsOf(wager);
      const side = centsOf(trilux) ?? 0;
      if (cents === null) throw new Error("Enter the wager in dollars.");
      let open = table;
      if (!open) {
        open = await must(api.player.POST("/v1/blackjack/tables", { body: { decks } }));
        setTable(open);
      }
      const dealt = await must(
        api.player.POST("/v1/blackjack/tables/{id}/rounds", {
          params: { path: { id: open.id }, header: { "Idempotency-Key": newKey() } },
          body: { spots: [{ wager: cents, trilux: side, blazing_7s: blazing && decks === 6 }] },
        }),
      );
      setRound(dealt);
      props.onMoney();
    });
  const decide = (allowed: AllowedAction) =>
    act.run(async () => {
      if (!round) return;
      const spot = allowed.spot ?? 0;
      const bet = round.bets[spot];
      let decision: ActionRequest;
      switch (allowed.action) {
        case "insurance":
          decision = { step: round.step, action: "insurance", spot, amount: Math.floor((bet?.wager ?? 0) / 2) };
          break;
        case "decline_insurance":
        case "even_money":
          decision = { step: round.step, action: allowed.action, spot };
          break;
        default:
          decision = { step: round.step, action: allowed.action };
      }
      const next = await must(
        api.player.POST("/v1/blackjack/rounds/{id}/actions", { params: { path: { id: round.id } }, body: decision }),
      );
      setRound(next);
      if (next.state === "settled") props.onMoney();
    });
  const inPlay = round !== null && round.state === "playing";
  return (
    <div>
      <h2>Blackjack</h2>
      <p data-testid="meter">
        Blazing 7's pot: <strong>{meter.value ? dollars(meter.value.pot_cents) : "…"}</strong>
        {meter.value ? ` (a ${dollars(meter.value.wager_cents)} wager)` : ""}
      </p>
      <BlackjackHowToPlay />
      <form
        class="box"
        aria-label="Wagers"
        onSubmit={(e) => {
          e.preventDefault();
          void deal();
        }}
      >
        <label class="field" for="bj-decks">
          <span>Decks</span>
          <select
            id="bj-decks"
            value={decks}
            disabled={table !== null}
            onChange={(e) => setDecks(e.currentTarget.value === "2" ? 2 : 6)}
          >
            <option value={6}>6 decks</option>
            <option value={2}>2 decks</option>
          </select>
        </label>
        <Field id="bj-wager" label="Wager (dollars)" inputMode="decimal" value={wager} onInput={setWager} />
        <Field id="bj-trilux" label="Trilux side wager (dollars)" inputMode="decimal" value={trilux} onInput={setTrilux} />
        <label class="check" for="bj-blazing">
          <input
            id="bj-blazing"
            type="checkbox"
            checked={blazing && decks === 6}
            disabled={decks !== 6}
            aria-describedby="bj-blazing-hint"
            onChange={(e) => setBlazing(e.currentTarget.checked)}
          />
          Blazing 7's
        </label>
        <p class="hint" id="bj-blazing-hint">
          {decks === 6 ? "The progressive: a posted wager, paid from the pot on the meter." : "Offered at six-deck tables only."}
        </p>
        <button type="submit" disabled={act.busy || inPlay}>
          Deal
        </button>
      </form>
      <ProblemBanner problem={act.problem} />
      {round?.round && <RoundLayout view={round} round={round.round} />}
      {round && (
        <div class="row" role="group" aria-label="Decisions">
          {round.allowed_actions.map((a) => (
            <button
              key={`${a.action}-${a.spot ?? ""}`}
              type="button"
              data-action={a.action}
              disabled={act.busy}
              onClick={() => void decide(a)}
            >
              {ACTION_NAMES[a.action]}
              {a.spot != null && round.bets.length > 1 ? ` (spot ${a.spot + 1})` : ""}
            </button>
          ))}
        </div>
      )}
      {round?.state === "settled" && (
        <p role="status" data-testid="bj-result">
          Round over: staked {dollars(round.staked_cents ?? 0)}, returned <strong>{dollars(round.returned_cents ?? 0)}</strong>
          {round.pot_prize_cents ? `, Blazing 7's pot prize ${dollars(round.pot_prize_cents)}` : ""}.
        </p>
      )}
    </div>
  );
}

function RoundLayout(props: { view: Schemas["RoundView"]; round: Schemas["Round"] }): JSX.Element {
  const { round } = props;
  const turn = round.turn ?? null;
  return (
    <div class="felt" data-testid="bj-round" data-round={props.view.id}>
      <div aria-label="Dealer's cards" role="group">
        <h3>Dealer</h3>
        {round.dealer.map((c, i) => (
          <Card key={`${c}-${i}`} card={c} />
        ))}
        {!round.hole_shown && <HiddenCard />}
      </div>
      {round.spots.map((spot, s) => (
        <div key={s} role="group" aria-label={`Spot ${s + 1}`}>
          <h3>Spot {s + 1}</h3>
          {spot.hands.map((hand, h) => (
            <div
              key={h}
              class={`hand${turn && turn[0] === s && turn[1] === h ? " in-turn" : ""}`}
              aria-current={turn && turn[0] === s && turn[1] === h ? "true" : undefined}
            >
              {hand.cards.map((c, i) => (
                <Card key={`${c}-${i}`} card={c} />
              ))}
              <span class="hint"> wager {dollars(hand.wager + hand.doubled)}</span>
            </div>
          ))}
          {spot.returned != null && <p>Returned {dollars(spot.returned)}</p>}
        </div>
      ))}
    </div>
  );
}

/** The game in a player's words (K.A.R. 111-301-6). */
export function BlackjackHowToPlay(): JSX.Element {
  return (
    <details class="box">
      <summary>How to play blackjack</summary>
      <p>
        Get closer to 21 than the dealer without going over. Cards count their number, kings, queens and jacks 10, an ace
        1 or 11. Two cards making 21 are a blackjack, paid 3 to 2 (a push when the dealer has one too). You may draw
        (hit) until you stand or pass 21; double your wager on your first two cards for exactly one more card; or split
        a pair into two hands with a second wager (up to four hands; split aces take one card each).
      </p>
      <p>
        When the dealer shows an ace you may insure your hand for up to half your wager, paid 2 to 1 if the dealer has
        blackjack; with a blackjack yourself you may take even money instead. The dealer draws to 17 and stands on a hard
        17 or a soft 18. A winning hand pays 1 to 1. The TriLux side wager pays on your two cards and the dealer's up
        card (a flush, straight, three of a kind or straight flush); Blazing 7's pays when your first two cards hold a 7,
        its largest prizes, from its pot, when they and the dealer's up card are all 7s.
      </p>
    </details>
  );
}
