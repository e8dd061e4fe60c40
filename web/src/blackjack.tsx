// The blackjack table: open a table, place the wager and side wagers on a spot, and play the
// round with only the decisions the round allows now (the API lists them); the Blazing 7's pot
// is shown as it grows. Recall lists the last rounds (blackjack and I Luv Suits) with every card
// and decision, and the last Keno tickets.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, centsOf, dollars, must, newKey, publicApi, type Schemas, when } from "./session";
import { Card, Field, HiddenCard, ProblemBanner, useAction, useLoad } from "./ui";

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
  const [decks, setDecks] = useState(props.resume?.decks ?? 6);
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
            onChange={(e) => setDecks(Number(e.currentTarget.value))}
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

export function Recall(): JSX.Element {
  const rounds = useLoad(() => must(api.player.GET("/v1/blackjack/recall")), []);
  const tickets = useLoad(() => must(api.player.GET("/v1/keno/tickets", { params: { query: { limit: 10 } } })), []);
  const suits = useLoad(() => must(api.player.GET("/v1/i-luv-suits/recall")), []);
  return (
    <div>
      <h2>Game recall</h2>
      <h3>Blackjack: the last rounds</h3>
      <ProblemBanner problem={rounds.problem} />
      <ol class="recall">
        {(rounds.value ?? []).map((r) => (
          <li key={r.id}>
            <p>
              {when(r.created_at)} · {r.state} · staked {dollars(r.staked_cents ?? 0)}, returned{" "}
              {dollars(r.returned_cents ?? 0)} · balance {dollars(r.balance_before_cents ?? 0)} →{" "}
              {dollars(r.balance_after_cents ?? 0)}
            </p>
            {r.round && (
              <p>
                Dealer {r.round.dealer.join(" ")}; player{" "}
                {r.round.spots.map((s) => s.hands.map((h) => h.cards.join(" ")).join(" | ")).join("; ")}; decisions{" "}
                {r.actions.map((a) => a.decision.action).join(", ") || "none"}
              </p>
            )}
          </li>
        ))}
      </ol>
      <h3>I Luv Suits: the last rounds</h3>
      <ProblemBanner problem={suits.problem} />
      <ol class="recall">
        {(suits.value ?? []).map((r) => (
          <li key={r.id}>
            <p>
              {when(r.created_at)} · {r.state} · {r.decision ? r.decision.decision : "undecided"} · staked{" "}
              {dollars(r.staked_cents ?? 0)}, returned {dollars(r.returned_cents ?? 0)} · balance{" "}
              {dollars(r.balance_before_cents ?? 0)} → {dollars(r.balance_after_cents ?? 0)}
            </p>
            {r.player && (
              <p>
                You {r.player.cards.join(" ")}
                {r.dealer ? `; dealer ${r.dealer.cards.join(" ")}` : ""}
              </p>
            )}
          </li>
        ))}
      </ol>
      <h3>Castle Keno: the last tickets</h3>
      <ol class="recall">
        {(tickets.value?.items ?? []).map((t) => (
          <li key={t.id}>
            {when(t.created_at)} · {t.option} {t.spots.join(",")} · {dollars(t.stake_cents)} · hits {t.hits ?? "—"} · won{" "}
            {dollars(t.payout_cents ?? 0)}
          </li>
        ))}
      </ol>
    </div>
  );
}
