// The Castle Keno wall: 80 numbers in two halves (1-40 above, 41-80 below), every option with
// the spot counts its pay table allows, a ticket played at once or entered in the scheduled
// draws, with the draw on sale counting down to its close and results arriving live.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, newKey, publicApi, type Schemas } from "./session";
import { minutesSeconds, ProblemBanner, useAction, useCountdown, useLiveDraws, useLoad } from "./ui";

const OPTION_NAMES: Record<Schemas["BetOption"], string> = {
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
  const drawn = new Set(played?.draw_numbers ?? []);
  const toggle = (n: number) => {
    setSpots((now) =>
      now.includes(n) ? now.filter((x) => x !== n) : now.length < maxSpots ? [...now, n].sort((a, b) => a - b) : now,
    );
  };
  const half = (from: number) => (
    <div class="keno-half" role="group" aria-label={`Numbers ${from} to ${from + 39}`}>
      {Array.from({ length: 40 }, (_, i) => from + i).map((n) => (
        <button
          key={n}
          type="button"
          class={`keno-number${spots.includes(n) ? " picked" : ""}${drawn.has(n) ? " drawn" : ""}`}
          aria-pressed={spots.includes(n)}
          aria-label={`${n}${drawn.has(n) ? ", drawn" : ""}`}
          disabled={!needsSpots}
          data-number={n}
          onClick={() => toggle(n)}
        >
          {n}
        </button>
      ))}
    </div>
  );
  const body = () => ({ option, spots: needsSpots ? spots : [], tickets: tickets ?? 1 });
  return (
    <div>
      <h2>Castle Keno</h2>
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
        <label class="field" for="keno-tickets">
          <span>$1 tickets</span>
          <input
            id="keno-tickets"
            type="number"
            min={1}
            max={100}
            value={ticketsText}
            aria-invalid={tickets === null}
            onInput={(e) => setTicketsText(e.currentTarget.value)}
          />
        </label>
        <label class="field" for="keno-draws">
          <span>Scheduled draws</span>
          <input
            id="keno-draws"
            type="number"
            min={1}
            max={20}
            value={drawsText}
            aria-invalid={draws === null}
            onInput={(e) => setDrawsText(e.currentTarget.value)}
          />
        </label>
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
      <div class="keno-wall">
        {half(1)}
        {half(41)}
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

/** The whole number `text` holds if it is one from `min` to `max`; null while it is not (empty
 * while the player types another, a fraction, out of range). */
function wholeIn(text: string, min: number, max: number): number | null {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isInteger(n) && n >= min && n <= max ? n : null;
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
