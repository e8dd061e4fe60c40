// Game recall: the player's last plays of every game, in words: blackjack and I Luv Suits with
// their cards drawn, Castle Keno played at once and in scheduled draws, and craps roll by roll
// (what was bet, the dice, what each bet did, the wallet before and after).
import type { JSX } from "preact";
import { betName, outcomeWords } from "./craps";
import { OPTION_NAMES } from "./keno";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { Cards, ProblemBanner, useLoad } from "../shared/ui";

/** Staked, back and the difference, with the wallet before and after. */
function Money(props: { staked?: number | null; returned?: number | null; before?: number | null; after?: number | null }) {
  const staked = props.staked ?? 0;
  const returned = props.returned ?? 0;
  const net = returned - staked;
  return (
    <>
      staked {dollars(staked)}, back {dollars(returned)} ({net >= 0 ? `won ${dollars(net)}` : `lost ${dollars(-net)}`}) ·
      wallet {dollars(props.before ?? 0)} → {dollars(props.after ?? 0)}
    </>
  );
}

function change(c: Schemas["Change"]): string {
  const name = betName(c);
  switch (c.change) {
    case "place":
      return `bet ${dollars(c.amount_cents ?? 0)} on ${name}`;
    case "reduce":
      return `${name} reduced to ${dollars(c.amount_cents ?? 0)}`;
    case "remove":
      return `${name} taken down`;
    default:
      return `${name} called ${c.working ? "on" : "off"}`;
  }
}

export function Recall(): JSX.Element {
  const rounds = useLoad(() => must(api.player.GET("/v1/blackjack/recall")), []);
  const suits = useLoad(() => must(api.player.GET("/v1/i-luv-suits/recall")), []);
  const tickets = useLoad(() => must(api.player.GET("/v1/keno/tickets", { params: { query: { limit: 10 } } })), []);
  const scheduled = useLoad(
    () => must(api.player.GET("/v1/keno/draw-tickets", { params: { query: { limit: 10 } } })),
    [],
  );
  const rolls = useLoad(() => must(api.player.GET("/v1/craps/recall")), []);
  return (
    <div>
      <h2>Game recall</h2>
      <h3>Blackjack: the last rounds</h3>
      <ProblemBanner problem={rounds.problem} />
      <ol class="recall" data-testid="recall-blackjack">
        {(rounds.value ?? []).map((r) => (
          <li key={r.id}>
            <p>
              {when(r.created_at)} · {r.state} ·{" "}
              <Money
                staked={r.staked_cents}
                returned={r.returned_cents}
                before={r.balance_before_cents}
                after={r.balance_after_cents}
              />
            </p>
            {r.round && (
              <p>
                Dealer <Cards cards={r.round.dealer} />; you{" "}
                {r.round.spots.map((s, i) => (
                  <span key={i}>
                    {s.hands.map((h, j) => (
                      <Cards key={j} cards={h.cards} />
                    ))}
                  </span>
                ))}
                ; you chose {r.actions.map((a) => a.decision.action.replace(/_/g, " ")).join(", ") || "nothing"}
              </p>
            )}
          </li>
        ))}
      </ol>
      {rounds.value?.length === 0 && <p class="hint">None yet.</p>}
      <h3>I Luv Suits: the last rounds</h3>
      <ProblemBanner problem={suits.problem} />
      <ol class="recall" data-testid="recall-i-luv-suits">
        {(suits.value ?? []).map((r) => (
          <li key={r.id}>
            <p>
              {when(r.created_at)} · {r.state} · {r.decision ? `you chose to ${r.decision.decision}` : "undecided"} ·{" "}
              <Money
                staked={r.staked_cents}
                returned={r.returned_cents}
                before={r.balance_before_cents}
                after={r.balance_after_cents}
              />
            </p>
            {r.player && (
              <p>
                You <Cards cards={r.player.cards} />
                {r.dealer && (
                  <>
                    ; dealer <Cards cards={r.dealer.cards} />
                  </>
                )}
              </p>
            )}
          </li>
        ))}
      </ol>
      {suits.value?.length === 0 && <p class="hint">None yet.</p>}
      <h3>Craps: the last rolls</h3>
      <ProblemBanner problem={rolls.problem} />
      <ol class="recall" data-testid="recall-craps">
        {(rolls.value ?? []).map((r) => (
          <li key={`${r.session_id}-${r.seq}`}>
            <p>
              {when(r.created_at)}
              {r.changes.length > 0 ? ` · ${r.changes.map(change).join("; ")}` : ""}
              {r.roll
                ? ` · rolled ${r.roll.roll.die1} and ${r.roll.roll.die2}: ${r.roll.total}${r.roll.seven_out ? ", seven out" : ""}`
                : ""}{" "}
              · wallet {dollars(r.balance_before_cents)} → {dollars(r.balance_after_cents)}
            </p>
            {r.roll && r.roll.outcomes.length > 0 && (
              <ul>
                {r.roll.outcomes.map((o, i) => (
                  <li key={i}>{outcomeWords(o)}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      {rolls.value?.length === 0 && <p class="hint">None yet.</p>}
      <h3>Castle Keno: tickets played at once</h3>
      <ProblemBanner problem={tickets.problem} />
      <ol class="recall" data-testid="recall-keno">
        {(tickets.value?.items ?? []).map((t) => (
          <li key={t.id}>
            {when(t.created_at)} · {OPTION_NAMES[t.option]}
            {t.spots.length > 0 ? ` on ${t.spots.join(", ")}` : ""} · {dollars(t.stake_cents)} · {t.hits ?? 0} caught ·
            won {dollars(t.payout_cents ?? 0)}
            {t.draw_numbers ? ` · drawn ${t.draw_numbers.join(" ")}` : ""}
          </li>
        ))}
      </ol>
      {tickets.value?.items?.length === 0 && <p class="hint">None yet.</p>}
      <h3>Castle Keno: tickets in scheduled draws</h3>
      <ProblemBanner problem={scheduled.problem} />
      <ol class="recall" data-testid="recall-keno-scheduled">
        {(scheduled.value?.items ?? []).map((t) => (
          <li key={t.id}>
            <p>
              {when(t.created_at)} · {OPTION_NAMES[t.option]}
              {t.spots.length > 0 ? ` on ${t.spots.join(", ")}` : ""} · {t.draws} draw{t.draws === 1 ? "" : "s"} at{" "}
              {dollars(t.stake_cents)} each
              {t.voided ? " · later draws cancelled, their cost returned" : ""}
            </p>
            <ul>
              {t.entries.map((e) => (
                <li key={e.draw_number}>
                  Draw {e.draw_number}:{" "}
                  {e.payout_cents != null
                    ? `${e.hits ?? 0} caught, won ${dollars(e.payout_cents)}`
                    : e.draw_state === "open"
                      ? "not drawn yet"
                      : e.draw_state}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {scheduled.value?.items?.length === 0 && <p class="hint">None yet.</p>}
    </div>
  );
}
