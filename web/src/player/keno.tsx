// The Castle Keno wall: 80 numbers in two halves (1-40 above, 41-80 below), every option with
// the spot counts its pay table allows, a ticket played at once or entered in the scheduled
// draws, with the draw on sale counting down to its close and results arriving live.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, newKey, publicApi, type Schemas } from "../shared/session";
import { minutesSeconds, ProblemBanner, Scroll, useAction, useCountdown, useLiveDraws, useLoad, WholeField, wholeIn } from "../shared/ui";

export const OPTION_NAMES: Record<Schemas["BetOption"], string> = {
  bet: "Bet (pick 1-15)",
  bet_against: "Bet against (none hit)",
  hit_all: "Hit all",
  high_roller: "High roller",
  top_or_bottom: "Top or bottom (no picks)",
};

export function KenoWall(props: { onMoney: () => void }): JSX.Element {
  const tables = useLoad(() => must(publicApi.GET("/v1/keno/paytables")), []);
  const live = useLiveDraws();
  const closesIn = useCountdown(live.open?.sales_close_at);
  const [option, setOption] = useState<Schemas["BetOption"]>("bet");
  const [spots, setSpots] = useState<number[]>([]);
  // The fields' text as typed: a player who deletes the count to type another must not see it
  // spring back (a "1" left in front of the "2" they type would buy 12 tickets).
  const [ticketsText, setTicketsText] = useState("1");
  const [drawsText, setDrawsText] = useState("1");
  const tickets = wholeIn(ticketsText, 1, 100);
  const draws = wholeIn(drawsText, 1, 20);
  const [played, setPlayed] = useState<Schemas["TicketView"] | null>(null);
  const [entered, setEntered] = useState<Schemas["DrawTicketView"] | null>(null);
  const play = useAction();
  const table = tables.value?.find((t) => t.option === option);
  const needsSpots = option !== "top_or_bottom";
  const allowed =
    tickets !== null &&
    (table ? !needsSpots || (spots.length >= table.min_spots && spots.length <= table.max_spots) : false);
  const maxSpots = needsSpots ? (table?.max_spots ?? 15) : 0;
  // The order each number was drawn in: the rock that struck it flies that many rocks after the first.
  const order = new Map((played?.draw_numbers ?? []).map((n, i) => [n, i] as const));
  const toggle = (n: number) => {
    setSpots((now) =>
      now.includes(n) ? now.filter((x) => x !== n) : now.length < maxSpots ? [...now, n].sort((a, b) => a - b) : now,
    );
  };
  // The ticket as the rules draw it: a castle wall of 80 granite blocks in two halves; each number
  // drawn is a rock from the catapult striking its block, a flag unfurling on it, the block
  // cracking. The motion is CSS only (none under prefers-reduced-motion); the state and the
  // words a screen reader reads are there at once.
  const half = (from: number, name: string) => (
    <div class="keno-half" role="group" aria-label={`${name} of the wall: numbers ${from} to ${from + 39}`}>
      {Array.from({ length: 40 }, (_, i) => from + i).map((n) => {
        const struck = order.get(n);
        return (
          <button
            key={`${n}-${played?.id ?? ""}`}
            type="button"
            class={`keno-number${spots.includes(n) ? " picked" : ""}${struck !== undefined ? " drawn" : ""}`}
            aria-pressed={spots.includes(n)}
            aria-label={`${n}${struck !== undefined ? `, drawn: struck by rock ${struck + 1}` : ""}`}
            disabled={!needsSpots}
            data-number={n}
            data-order={struck}
            style={struck !== undefined ? { "--order": struck } : undefined}
            onClick={() => toggle(n)}
          >
            {struck === undefined ? (
              n
            ) : (
              <>
                <span class="rock" aria-hidden="true" />
                <span class="flag">{n}</span>
              </>
            )}
          </button>
        );
      })}
    </div>
  );
  const body = () => ({ option, spots: needsSpots ? spots : [], tickets: tickets ?? 1 });
  return (
    <div>
      <h2>Castle Keno</h2>
      <KenoHowToPlay />
      <div class="live" aria-live="polite" data-testid="live">
        {live.open ? (
          <p>
            Draw <strong>{live.open.number}</strong> on sale, closes in{" "}
            <strong data-testid="countdown">{closesIn === null ? "…" : minutesSeconds(closesIn)}</strong>
          </p>
        ) : (
          <p>Waiting for the draw schedule…</p>
        )}
        {live.drawn?.numbers && (
          <p data-testid="last-draw">
            Draw {live.drawn.number}: {live.drawn.numbers.join(" ")}
          </p>
        )}
      </div>
      <div class="keno-controls">
        <label class="field" for="keno-option">
          <span>Option</span>
          <select
            id="keno-option"
            value={option}
            onChange={(e) => {
              setOption(e.currentTarget.value as Schemas["BetOption"]);
              setSpots([]);
            }}
          >
            {(tables.value ?? []).map((t) => (
              <option key={t.option} value={t.option}>
                {OPTION_NAMES[t.option]}
                {t.option === "top_or_bottom" ? "" : ` — ${t.min_spots} to ${t.max_spots} spots`}
              </option>
            ))}
          </select>
        </label>
        <WholeField id="keno-tickets" label="$1 tickets" min={1} max={100} value={ticketsText} onInput={setTicketsText} />
        <WholeField id="keno-draws" label="Scheduled draws" min={1} max={20} value={drawsText} onInput={setDrawsText} />
      </div>
      <p class="hint" aria-live="polite">
        {needsSpots
          ? `${spots.length} picked${table ? ` (this option takes ${table.min_spots} to ${table.max_spots})` : ""}: ${spots.join(", ") || "none yet"}`
          : "Top or bottom needs no picks: it pays on the 20 drawn numbers' split between the halves."}
      </p>
      {(tickets === null || draws === null) && (
        <p class="hint" role="alert" data-testid="keno-count-problem">
          {tickets === null ? "Tickets: a whole number from 1 to 100. " : ""}
          {draws === null ? "Scheduled draws: a whole number from 1 to 20." : ""}
        </p>
      )}
      <div class="keno-beside">
        <div class={`keno-wall castle-wall${played ? " under-siege" : ""}`} data-testid="castle-wall">
          <div class="battlements" aria-hidden="true" />
          {half(1, "Top")}
          {half(41, "Bottom")}
          <div class="catapult" aria-hidden="true" title="the catapult" />
        </div>
        {table && (
          <CatchPays
            table={table}
            spots={needsSpots ? spots.length : 0}
            tickets={tickets ?? 1}
            hits={played?.hits ?? null}
          />
        )}
      </div>
      <div class="row">
        <button
          type="button"
          disabled={!allowed || play.busy}
          onClick={() =>
            void play.run(async () => {
              setEntered(null);
              const ticket = await must(
                api.player.POST("/v1/keno/tickets", {
                  params: { header: { "Idempotency-Key": newKey() } },
                  body: body(),
                }),
              );
              setPlayed(ticket);
              props.onMoney();
            })
          }
        >
          Play now
        </button>
        <button
          type="button"
          disabled={!allowed || draws === null || play.busy}
          onClick={() =>
            void play.run(async () => {
              setPlayed(null);
              const ticket = await must(
                api.player.POST("/v1/keno/draw-tickets", {
                  params: { header: { "Idempotency-Key": newKey() } },
                  body: { ...body(), draws: draws ?? 1 },
                }),
              );
              setEntered(ticket);
              props.onMoney();
            })
          }
        >
          Enter the next {draws === 1 ? "draw" : `${draws ?? ""} draws`}
        </button>
        <button type="button" onClick={() => setSpots([])} disabled={spots.length === 0}>
          Clear
        </button>
      </div>
      <ProblemBanner problem={play.problem} />
      {played && (
        <div class="result" role="status" data-testid="keno-result">
          <p>
            Ticket of {dollars(played.stake_cents)}: {played.state}. Hits {played.hits ?? 0}, won{" "}
            <strong>{dollars(played.payout_cents ?? 0)}</strong>.
          </p>
          <p>Drawn: {(played.draw_numbers ?? []).join(" ")}</p>
        </div>
      )}
      {entered && <EnteredTicket ticket={entered} drawnNumber={live.drawn?.number} />}
    </div>
  );
}

/** The chosen option's pay table for the spots picked, beside the wall: what each catch would
 * pay for the tickets chosen (the last play's catch marked). */
function CatchPays(props: { table: Schemas["PayTable"]; spots: number; tickets: number; hits: number | null }): JSX.Element {
  const { table, spots, tickets } = props;
  const topOrBottom = table.option === "top_or_bottom";
  const lines = table.cells
    .filter(([s]) => topOrBottom || s === spots)
    .map(([, hits, cents]) => ({ hits: hits ?? 0, cents: cents ?? 0 }))
    .sort((a, b) => b.hits - a.hits);
  return (
    <section class="box pays" aria-labelledby="keno-pays-title" data-testid="keno-pays">
      <h3 id="keno-pays-title">What a catch pays</h3>
      {!topOrBottom && spots === 0 ? (
        <p class="hint">Pick numbers to see what each catch would pay.</p>
      ) : lines.length === 0 ? (
        <p class="hint">
          {OPTION_NAMES[table.option]} takes {table.min_spots} to {table.max_spots} spots.
        </p>
      ) : (
        <Scroll label="What each catch pays">
          <table>
            <caption>
              {topOrBottom ? "Top or bottom" : `${OPTION_NAMES[table.option]}, ${spots} spots`}, {tickets} × $1
            </caption>
            <thead>
              <tr>
                <th scope="col">{topOrBottom ? "Smaller half's count" : "Catch"}</th>
                <th scope="col" class="num">
                  Pays
                </th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l) => (
                <tr key={l.hits} aria-current={props.hits === l.hits ? "true" : undefined}>
                  <td>{l.hits}</td>
                  <td class="num">{dollars(l.cents * tickets)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </section>
  );
}

export function KenoHowToPlay(): JSX.Element {
  return (
    <details class="box">
      <summary>How to play Castle Keno</summary>
      <p>
        Twenty numbers of 80 are drawn. Pick your numbers (spots) on the wall, choose how many $1 tickets to play, and
        play now (drawn at once for you) or enter the next scheduled draws, which close as the countdown says. What a
        catch pays is shown beside the wall: the more of your spots are drawn, the more it pays. Bet against pays when
        none of yours is drawn; top or bottom needs no picks and pays on how the 20 drawn split between 1-40 and 41-80.
      </p>
    </details>
  );
}

/** A ticket in scheduled draws, read again as each of its draws is drawn. */
function EnteredTicket(props: { ticket: Schemas["DrawTicketView"]; drawnNumber: number | undefined }): JSX.Element {
  const view = useLoad(
    () => must(api.player.GET("/v1/keno/draw-tickets/{id}", { params: { path: { id: props.ticket.id } } })),
    [props.ticket.id, props.drawnNumber],
  );
  const ticket = view.value ?? props.ticket;
  return (
    <div class="result" role="status" data-testid="keno-entered">
      <p>
        Entered {ticket.draws} draw{ticket.draws === 1 ? "" : "s"} at {dollars(ticket.stake_cents)} a draw:{" "}
        {dollars(ticket.stake_cents * ticket.draws)} taken from your wallet.
      </p>
      <ul>
        {ticket.entries.map((e) => (
          <li key={e.draw_number}>
            Draw {e.draw_number}: {e.draw_state}
            {e.payout_cents != null ? `, ${e.hits ?? 0} hits, won ${dollars(e.payout_cents)}` : ""}
          </li>
        ))}
      </ul>
    </div>
  );
}
