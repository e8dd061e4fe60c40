// The I Luv Suits table: place the ante and the side wagers, see your seven cards with your best
// flush picked out (the dealer's stay face down), then fold or play any amount the hand allows
// (the round says how much); the settled round shows the dealer's hand and what each wager
// returned. The progressive meter is shown as it grows.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, centsOf, dollars, must, newKey, publicApi, type Schemas } from "../shared/session";
import { Card, Cards, Field, HiddenCard, ProblemBanner, useAction, useLoad } from "../shared/ui";

type Round = Schemas["ILuvSuitsRound"];

const SHOWDOWNS: Record<Schemas["Showdown"], string> = {
  folded: "You folded",
  dealer_does_not_qualify: "The dealer does not qualify: the ante wins, the play is returned",
  player_wins: "Your flush wins",
  tie: "A tie: ante and play returned",
  dealer_wins: "The dealer's flush wins",
};

export function ILuvSuitsTable(props: { onMoney: () => void; resume?: Round | undefined }): JSX.Element {
  const [ante, setAnte] = useState("5");
  const [flushRush, setFlushRush] = useState("0");
  const [superRush, setSuperRush] = useState("0");
  const [progressive, setProgressive] = useState(false);
  // A hand left in play is shown where it stands.
  const [play, setPlay] = useState(props.resume?.play ? (props.resume.play.max_cents / 100).toFixed(2) : "");
  const [round, setRound] = useState<Round | null>(props.resume ?? null);
  const table = useLoad(() => must(publicApi.GET("/v1/i-luv-suits/table")), [round?.state]);
  const act = useAction();
  const deal = () =>
    act.run(async () => {
      const cents = centsOf(ante);
      if (cents === null) throw new Error("Enter the ante in dollars.");
      const dealt = await must(
        api.player.POST("/v1/i-luv-suits/rounds", {
          params: { header: { "Idempotency-Key": newKey() } },
          body: {
            ante_cents: cents,
            flush_rush_cents: centsOf(flushRush) ?? 0,
            super_flush_rush_cents: centsOf(superRush) ?? 0,
            progressive,
          },
        }),
      );
      setRound(dealt);
      setPlay(dealt.play ? (dealt.play.max_cents / 100).toFixed(2) : "");
      props.onMoney();
    });
  const decide = (decision: "fold" | "play") =>
    act.run(async () => {
      if (!round) return;
      const playCents = centsOf(play);
      if (decision === "play" && playCents === null) throw new Error("Enter the play wager in dollars.");
      const next = await must(
        api.player.POST("/v1/i-luv-suits/rounds/{id}/decision", {
          params: { path: { id: round.id } },
          body: decision === "play" ? { decision, play_cents: playCents } : { decision },
        }),
      );
      setRound(next);
      props.onMoney();
    });
  const deciding = round?.state === "deciding" && round.play != null;
  const rules = table.value?.rules;
  return (
    <div>
      <h2>I Luv Suits</h2>
      <p data-testid="ils-meter">
        Progressive pot: <strong>{table.value ? dollars(table.value.pot_cents) : "…"}</strong>
        {rules ? ` (a ${dollars(rules.progressive_wager_cents)} wager)` : ""}
      </p>
      <ILuvSuitsHowToPlay />
      <form
        class="box"
        aria-label="I Luv Suits wagers"
        onSubmit={(e) => {
          e.preventDefault();
          void deal();
        }}
      >
        <Field id="ils-ante" label="Ante (dollars)" inputMode="decimal" value={ante} onInput={setAnte} />
        <Field id="ils-flush-rush" label="Flush Rush (dollars)" inputMode="decimal" value={flushRush} onInput={setFlushRush} />
        <Field
          id="ils-super-rush"
          label="Super Flush Rush (dollars)"
          inputMode="decimal"
          value={superRush}
          onInput={setSuperRush}
        />
        <label class="check" for="ils-progressive">
          <input
            id="ils-progressive"
            type="checkbox"
            checked={progressive}
            onChange={(e) => setProgressive(e.currentTarget.checked)}
          />
          Progressive
        </label>
        {rules && (
          <p class="hint">
            Ante {dollars(rules.min_ante_cents)} to {dollars(rules.max_ante_cents)}; side wagers {dollars(rules.min_side_cents)} to{" "}
            {dollars(rules.max_side_cents)}.
          </p>
        )}
        <button type="submit" disabled={act.busy || deciding}>
          Deal
        </button>
      </form>
      <ProblemBanner problem={act.problem} />
      {round?.player && (
        <div class="felt" data-testid="ils-round">
          <div role="group" aria-label="Dealer's cards">
            <h3>Dealer</h3>
            {round.dealer
              ? round.dealer.cards.map((c) => <Card key={c} card={c} />)
              : Array.from({ length: 7 }, (_, i) => <HiddenCard key={i} />)}
            {round.dealer && (
              <p data-testid="ils-dealer-flush">
                Best flush: <Cards cards={round.dealer.flush} />
              </p>
            )}
          </div>
          <div role="group" aria-label="Your cards">
            <h3>You</h3>
            {round.player.cards.map((c) => (
              <Card key={c} card={c} />
            ))}
            <p data-testid="ils-flush">
              Best flush: <Cards cards={round.player.flush} /> ({round.player.flush_length} cards)
            </p>
          </div>
        </div>
      )}
      {deciding && round?.play && (
        <div class="row" role="group" aria-label="Decision">
          <Field
            id="ils-play"
            label={`Play (${dollars(round.play.min_cents)} to ${dollars(round.play.max_cents)})`}
            inputMode="decimal"
            value={play}
            onInput={setPlay}
          />
          <button type="button" data-action="play" disabled={act.busy} onClick={() => void decide("play")}>
            Play
          </button>
          <button type="button" data-action="fold" disabled={act.busy} onClick={() => void decide("fold")}>
            Fold
          </button>
        </div>
      )}
      {round?.state === "settled" && round.showdown && (
        <p role="status" data-testid="ils-result">
          {SHOWDOWNS[round.showdown]}. Staked {dollars(round.staked_cents ?? 0)}, returned{" "}
          <strong>{dollars(round.returned_cents ?? 0)}</strong>
          {round.returns?.pot_prize_cents ? `, pot prize ${dollars(round.returns.pot_prize_cents)}` : ""}.
        </p>
      )}
    </div>
  );
}

/** The game in a player's words (K.A.R. 111-301-74 to 76). */
export function ILuvSuitsHowToPlay(): JSX.Element {
  return (
    <details class="box">
      <summary>How to play I Luv Suits</summary>
      <p>
        You and the dealer each get seven cards; only flushes count. The hand with more cards of one suit wins; with as
        many, the higher cards of the flush decide, card by card. After you look, fold (you lose the ante) or play: a
        play wager equal to the ante, up to twice it with five cards of a suit, up to three times with six or seven.
      </p>
      <p>
        The dealer needs at least a three-card flush holding a 9 or higher. If the dealer does not have one, your ante is
        paid 1 to 1 and the play wager is returned; otherwise a better hand than the dealer's wins 1 to 1 on both, and a
        tie returns both. Flush Rush pays on a flush of four cards or more in your hand, Super Flush Rush on a straight
        flush of three or more, and the progressive on a straight flush of three or more, a six- or seven-card one
        winning a share of its pot or all of it.
      </p>
    </details>
  );
}
