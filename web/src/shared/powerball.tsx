// Powerball for players and at the till: the next drawing (its close and advertised grand
// prize), a slip of marked boards and quick picks with Power Play over several drawings, the
// ticket bought (its serial, boards and drawings, and what each won once settled), the player's
// own tickets and the prizes the office paid them (their W-2G records), a ticket checked by its
// serial (and at the till paid), the last results, and how to play.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, newKey, placeOf, publicApi, type Schemas, when } from "./session";
import { ProblemBanner, Scroll, useAction, useLoad, usePages, WholeField, wholeIn } from "./ui";

const WHITE_BALLS = 69;
const POWERBALLS = 26;
const WHITES = 5;
const PLAY_CENTS = 200;
const POWER_PLAY_CENTS = 100;

type Board = { whites: number[]; powerball: number };

export const TIER_NAMES: Record<string, string> = {
  grand_prize: "5 + Powerball (grand prize)",
  five: "5 white balls",
  four_powerball: "4 + Powerball",
  four: "4 white balls",
  three_powerball: "3 + Powerball",
  three: "3 white balls",
  two_powerball: "2 + Powerball",
  one_powerball: "1 + Powerball",
  powerball: "Powerball only",
};

const DRAWING_STATES: Record<string, string> = {
  open: "on sale",
  closed: "sales closed, awaiting the drawing",
  drawn: "drawn, awaiting certification",
  certified: "results certified",
  settled: "prizes settled",
};

type Ticket = Schemas["PowerballTicketView"];
type SaleRequest = Schemas["PowerballSaleRequest"];

/** The player's Powerball: bought from the wallet (`LOTTO_POWERBALL_ONLINE`). */
export function PowerballCounter(props: { onMoney: () => void }): JSX.Element {
  const [ticket, setTicket] = useState<Ticket | null>(null);
  const [bought, setBought] = useState(0);
  return (
    <div>
      <h2>Powerball</h2>
      <NextDrawing />
      <HowToPlay />
      <PowerballSlip
        buy={async (body) => {
          const bought = await must(
            api.player.POST("/v1/powerball/tickets", {
              params: { header: { "Idempotency-Key": newKey() } },
              body,
            }),
          );
          setTicket(bought);
          setBought((n) => n + 1);
          props.onMoney();
        }}
      />
      {ticket && <TicketCard ticket={ticket} title="Your ticket" />}
      <MyTickets reload={bought} />
      <TicketCheck />
      <LatestResults />
    </div>
  );
}

/** The till's Powerball: a slip sold and its ticket printed, and a ticket checked and paid. */
export function PowerballTill(): JSX.Element {
  const [ticket, setTicket] = useState<Ticket | null>(null);
  const [serial, setSerial] = useState("");
  const [paid, setPaid] = useState<Schemas["PowerballClaimView"] | null>(null);
  const pay = useAction();
  return (
    <div>
      <NextDrawing />
      <PowerballSlip
        buy={async (body) => {
          setTicket(
            await must(
              api.till.POST("/v1/powerball/retail/tickets", {
                params: { header: { "Idempotency-Key": newKey() } },
                body,
              }),
            ),
          );
        }}
      />
      {ticket && (
        <section class="box receipt" aria-label="Ticket to print" data-testid="powerball-ticket">
          <h3>Powerball ticket</h3>
          <TicketLines ticket={ticket} />
          <p class="barcode" aria-label={`Barcode ${ticket.serial}`}>
            {ticket.serial}
          </p>
          <button type="button" onClick={() => window.print()}>
            Print the ticket
          </button>
        </section>
      )}
      <section class="box" aria-labelledby="pb-pay-title">
        <h3 id="pb-pay-title">Check and pay a ticket</h3>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void pay.run(async () => {
              setPaid(null);
              setPaid(
                await must(
                  api.till.POST("/v1/powerball/retail/claims", {
                    params: { header: { "Idempotency-Key": newKey() } },
                    body: { serial: serial.trim() },
                  }),
                ),
              );
            });
          }}
        >
          <label class="field" for="pb-pay-serial">
            <span>Serial (scan or type)</span>
            <input id="pb-pay-serial" inputMode="numeric" value={serial} onInput={(e) => setSerial(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={pay.busy || serial.trim() === ""}>
            Pay
          </button>
        </form>
        <ProblemBanner problem={pay.problem} />
        {paid && (
          <p role="status" data-testid="powerball-paid">
            Paid {dollars(paid.net_cents)} for the {paid.draw_date} drawing
            {paid.withheld_cents > 0 ? ` (${dollars(paid.withheld_cents)} withheld)` : ""}.
          </p>
        )}
        {paid && <PowerballReceipt claim={paid} />}
      </section>
    </div>
  );
}

/** The receipt of a Powerball prize paid at this till, to print as an instant claim's is. */
function PowerballReceipt(props: { claim: Schemas["PowerballClaimView"] }): JSX.Element {
  const c = props.claim;
  const place = placeOf("till");
  const lines = [
    "POWERBALL PRIZE PAID",
    place ? `${place.shop}${place.address ? `, ${place.address}` : ""}` : `Retailer  ${c.payee}`,
    place ? `Terminal  ${place.terminal}` : `Terminal  ${c.paid_by}`,
    `Receipt   ${c.id}`,
    `Ticket    ${c.serial}`,
    `Drawing   ${c.draw_date}`,
    `Prize     ${dollars(c.prize_cents)}`,
    `Paid      ${dollars(c.net_cents)}`,
    `Paid at   ${when(c.created_at)}`,
    "Status    PAID",
  ];
  return (
    <figure class="receipt" data-testid="powerball-receipt">
      <figcaption>Receipt {c.id}</figcaption>
      <pre>{lines.join("\n")}</pre>
      <button type="button" onClick={() => window.print()}>
        Print receipt
      </button>
    </figure>
  );
}

function NextDrawing(): JSX.Element {
  const next = useLoad(() => must(publicApi.GET("/v1/powerball/draws/next")), []);
  const drawing = next.value;
  return (
    <div class="live" aria-live="polite" data-testid="powerball-next">
      {drawing ? (
        <>
          <p class="jackpot" data-testid="powerball-jackpot">
            {drawing.advertised_cents != null ? (
              <>
                Estimated jackpot <strong>{dollars(drawing.advertised_cents)}</strong>
                {drawing.cash_value_cents != null && <> (cash value {dollars(drawing.cash_value_cents)})</>}
              </>
            ) : (
              <>Jackpot not yet announced for this drawing</>
            )}
          </p>
          <p>
            Next drawing <strong>{drawing.draw_date}</strong>.{" "}
            {drawing.sales_open ? <>Sales close {when(drawing.sales_close_at)}.</> : <>Sales resume {when(drawing.resumes_at)}.</>}
          </p>
        </>
      ) : (
        <p>Loading the next drawing…</p>
      )}
    </div>
  );
}

function HowToPlay(): JSX.Element {
  return (
    <details class="how-to-play">
      <summary>How to play</summary>
      <p>
        Mark five different white balls from 1 to 69 and one red Powerball from 1 to 26 on each board, or let the
        terminal pick (quick pick). A play is $2; Power Play adds $1 a play and multiplies every prize but the grand
        prize by the multiplier drawn (a match of five pays $2,000,000 with it). A ticket may enter several consecutive
        drawings. Drawings are on Monday, Wednesday and Saturday evenings, Central time; prizes are paid to your wallet
        once the drawing's results are certified.
      </p>
    </details>
  );
}

/** Boards marked on the balls, quick picks, Power Play and drawings, and the price; `buy` sells it. */
function PowerballSlip(props: { buy: (body: SaleRequest) => Promise<void> }): JSX.Element {
  const [whites, setWhites] = useState<number[]>([]);
  const [powerball, setPowerball] = useState<number | null>(null);
  const [boards, setBoards] = useState<Board[]>([]);
  const [quickText, setQuickText] = useState("0");
  const [drawsText, setDrawsText] = useState("1");
  const [powerPlay, setPowerPlay] = useState(false);
  const buy = useAction();
  const quick = wholeIn(quickText, 0, 10);
  const draws = wholeIn(drawsText, 1, 10);
  const plays = boards.length + (quick ?? 0);
  const cost = plays * (PLAY_CENTS + (powerPlay ? POWER_PLAY_CENTS : 0)) * (draws ?? 1);
  const boardReady = whites.length === WHITES && powerball !== null;
  const toggleWhite = (n: number) =>
    setWhites((now) =>
      now.includes(n) ? now.filter((x) => x !== n) : now.length < WHITES ? [...now, n].sort((a, b) => a - b) : now,
    );
  return (
    <>
      <section class="box" aria-labelledby="pb-board-title">
        <h3 id="pb-board-title">Mark a board</h3>
        <div class="pb-grid" role="group" aria-label="White balls 1 to 69, choose five">
          {range(WHITE_BALLS).map((n) => (
            <button
              key={n}
              type="button"
              class={`ball white${whites.includes(n) ? " picked" : ""}`}
              aria-pressed={whites.includes(n)}
              data-white={n}
              onClick={() => toggleWhite(n)}
            >
              {n}
            </button>
          ))}
        </div>
        <div class="pb-grid" role="group" aria-label="Powerball 1 to 26, choose one">
          {range(POWERBALLS).map((n) => (
            <button
              key={n}
              type="button"
              class={`ball red${powerball === n ? " picked" : ""}`}
              aria-pressed={powerball === n}
              data-powerball={n}
              onClick={() => setPowerball(powerball === n ? null : n)}
            >
              {n}
            </button>
          ))}
        </div>
        <p class="hint" aria-live="polite">
          {whites.length} of {WHITES} white balls{powerball === null ? ", no Powerball yet" : `, Powerball ${powerball}`}
        </p>
        <button
          type="button"
          disabled={!boardReady || boards.length >= 10}
          onClick={() => {
            if (powerball === null) return;
            setBoards([...boards, { whites, powerball }]);
            setWhites([]);
            setPowerball(null);
          }}
        >
          Add this board to the slip
        </button>
      </section>
      <section class="box" aria-labelledby="pb-slip-title">
        <h3 id="pb-slip-title">Your slip</h3>
        {boards.length === 0 ? (
          <p class="hint">No marked boards yet; add some, or ask for quick picks.</p>
        ) : (
          <ol data-testid="slip-boards">
            {boards.map((b, i) => (
              <li key={i}>
                <Balls whites={b.whites} powerball={b.powerball} />{" "}
                <button type="button" class="link" onClick={() => setBoards(boards.filter((_, j) => j !== i))}>
                  Remove board {i + 1}
                </button>
              </li>
            ))}
          </ol>
        )}
        <div class="keno-controls">
          <WholeField id="pb-quick" label="Quick picks" min={0} max={10} value={quickText} onInput={setQuickText} />
          <WholeField id="pb-draws" label="Drawings" min={1} max={10} value={drawsText} onInput={setDrawsText} />
          <label class="check" for="pb-power-play">
            <input
              id="pb-power-play"
              type="checkbox"
              checked={powerPlay}
              onChange={(e) => setPowerPlay(e.currentTarget.checked)}
            />
            <span>Power Play (+$1 a play)</span>
          </label>
        </div>
        <p data-testid="slip-cost">
          {plays} {plays === 1 ? "play" : "plays"} × {draws ?? "?"} {draws === 1 ? "drawing" : "drawings"}:{" "}
          <strong>{dollars(cost)}</strong>
        </p>
        <button
          type="button"
          disabled={buy.busy || plays === 0 || quick === null || draws === null}
          onClick={() =>
            void buy.run(async () => {
              await props.buy({ boards, quick_picks: quick ?? 0, power_play: powerPlay, draws: draws ?? 1 });
              setBoards([]);
            })
          }
        >
          Buy for {dollars(cost)}
        </button>
        <p>
          Or in one step:{" "}
          <button
            type="button"
            data-action="quick-pick-one"
            disabled={buy.busy}
            onClick={() =>
              void buy.run(async () => {
                await props.buy({ boards: [], quick_picks: 1, power_play: false, draws: 1 });
              })
            }
          >
            Quick pick: one board for {dollars(PLAY_CENTS)}
          </button>
        </p>
        <ProblemBanner problem={buy.problem} />
      </section>
    </>
  );
}

function LatestResults(): JSX.Element {
  const past = useLoad(() => must(publicApi.GET("/v1/powerball/draws", { params: { query: { limit: 5 } } })), []);
  return (
    <section class="box" aria-labelledby="pb-results-title">
        <h3 id="pb-results-title">Latest results</h3>
        {(past.value?.items ?? []).filter((d) => d.results).length === 0 ? (
          <p class="hint">No drawing has results yet.</p>
        ) : (
          <Scroll label="Powerball results" cards>
            <table class="data">
              <caption class="visually-hidden">Powerball results, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Drawing</th>
                  <th scope="col">Numbers</th>
                  <th scope="col">Power Play</th>
                </tr>
              </thead>
              <tbody>
                {(past.value?.items ?? [])
                  .filter((d) => d.results)
                  .map((d) => (
                    <tr key={d.draw_date}>
                      <td>{d.draw_date}</td>
                      <td>{d.results && <Balls whites={d.results.whites} powerball={d.results.powerball} />}</td>
                      <td>{d.results?.multiplier}x</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </Scroll>
        )}
    </section>
  );
}

/** When a ticket's drawings are, in words: one date, or the first and the last. */
function drawingDates(t: Ticket): string {
  const first = t.drawings[0]?.draw_date;
  const last = t.drawings[t.drawings.length - 1]?.draw_date;
  if (first === undefined || last === undefined) return "none";
  return first === last ? first : `${first} to ${last}`;
}

/** What a ticket has won so far, in words. */
function wonSoFar(t: Ticket): string {
  if (t.state === "refused") return "refused: nothing taken";
  const won = t.drawings.flatMap((d) => d.winnings).reduce((sum, w) => sum + w.prize_cents, 0);
  if (won > 0) return dollars(won);
  return t.drawings.some((d) => d.state !== "settled" && d.state !== "certified") ? "awaiting drawings" : "no prize";
}

/** The player's own tickets, newest first, 10 at a time; each shown in full when chosen. */
function MyTickets(props: { reload: number }): JSX.Element {
  const [shown, setShown] = useState<Ticket | null>(null);
  const pages = usePages(
    (after) => must(api.player.GET("/v1/powerball/tickets", { params: { query: { limit: 10, after } } })),
    [props.reload],
  );
  const tickets = pages.items;
  return (
    <section class="box" aria-labelledby="pb-mine-title">
      <h3 id="pb-mine-title">Your tickets</h3>
      <ProblemBanner problem={pages.problem} />
      {pages.loaded && tickets.length === 0 ? (
        <p class="hint">You have not bought a Powerball ticket here yet.</p>
      ) : (
        <Scroll label="Your Powerball tickets" cards>
          <table class="data" data-testid="my-powerball-tickets">
            <caption class="visually-hidden">Your Powerball tickets, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Bought</th>
                <th scope="col">Serial</th>
                <th scope="col">Boards</th>
                <th scope="col">Drawings</th>
                <th scope="col">Won</th>
                <th scope="col">
                  <span class="visually-hidden">Show</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tickets.map((t) => (
                <tr key={t.serial}>
                  <td>{when(t.created_at)}</td>
                  <td>{t.serial}</td>
                  <td>
                    {t.boards.length}
                    {t.power_play ? " + Power Play" : ""}
                  </td>
                  <td>{drawingDates(t)}</td>
                  <td>{wonSoFar(t)}</td>
                  <td>
                    <button
                      type="button"
                      class="link"
                      data-show={t.serial}
                      onClick={() => setShown(t)}
                      aria-label={`Show ticket ${t.serial}`}
                    >
                      Show
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      {pages.next && (
        <button type="button" disabled={pages.busy} onClick={pages.older}>
          Older tickets
        </button>
      )}
      {shown && <TicketCard ticket={shown} title={`Ticket ${shown.serial}`} />}
    </section>
  );
}

/** Prizes the lottery office paid the player for tickets bought here, with their W-2G records. */
export function OfficePrizes(): JSX.Element {
  const paid = useLoad(() => must(api.player.GET("/v1/powerball/office-claims", { params: { query: {} } })), []);
  const claims = paid.value ?? [];
  return (
    <section aria-labelledby="office-prizes-title">
      <h3 id="office-prizes-title">Prizes paid at the lottery office</h3>
      <p class="hint">
        A prize over the online limit is claimed at the lottery office with the ticket's serial; a W-2G is made for a
        prize of $600 or more, and tax is withheld over $5,000.
      </p>
      <ProblemBanner problem={paid.problem} />
      {paid.value && claims.length === 0 ? (
        <p class="hint">None yet.</p>
      ) : (
        <Scroll label="Prizes paid at the office" cards>
          <table class="data" data-testid="office-prizes">
            <caption class="visually-hidden">Prizes paid at the lottery office, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Paid</th>
                <th scope="col">Ticket</th>
                <th scope="col">Drawing</th>
                <th scope="col">Prize</th>
                <th scope="col">Withheld</th>
                <th scope="col">Paid to you</th>
                <th scope="col">W-2G</th>
              </tr>
            </thead>
            <tbody>
              {claims.map((c) => (
                <tr key={c.id}>
                  <td>{when(c.created_at)}</td>
                  <td>{c.serial}</td>
                  <td>{c.draw_date}</td>
                  <td>{dollars(c.paid_cents)}</td>
                  <td>{dollars(c.withheld_cents)}</td>
                  <td>{dollars(c.net_cents)}</td>
                  <td>
                    {c.w2g
                      ? `Yes: ${c.claimant_name ?? "claimant"}, TIN ending ${c.tin_last4 ?? "----"}`
                      : "No"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </section>
  );
}

/** A ticket looked up by the serial printed on it (one bought online by this player). */
function TicketCheck(): JSX.Element {
  const [serial, setSerial] = useState("");
  const [found, setFound] = useState<Ticket | null>(null);
  const check = useAction();
  return (
    <section class="box" aria-labelledby="pb-check-title">
      <h3 id="pb-check-title">Check a ticket</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void check.run(async () => {
            setFound(
              await must(api.player.GET("/v1/powerball/tickets/{serial}", { params: { path: { serial: serial.trim() } } })),
            );
          });
        }}
      >
        <label class="field" for="pb-serial">
          <span>Serial (19 digits)</span>
          <input id="pb-serial" inputMode="numeric" value={serial} onInput={(e) => setSerial(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={check.busy || serial.trim() === ""}>
          Check
        </button>
      </form>
      <ProblemBanner problem={check.problem} />
      {found && <TicketCard ticket={found} title="That ticket" />}
    </section>
  );
}

function TicketCard(props: { ticket: Ticket; title: string }): JSX.Element {
  return (
    <section class="box" aria-label={props.title} data-testid="powerball-ticket">
      <h3>{props.title}</h3>
      <TicketLines ticket={props.ticket} />
    </section>
  );
}

/** A ticket in words: serial, boards, drawings and what each won. */
function TicketLines(props: { ticket: Ticket }): JSX.Element {
  const t = props.ticket;
  return (
    <>
      <p>
        Serial <strong data-testid="ticket-serial">{t.serial}</strong> · {t.boards.length}{" "}
        {t.boards.length === 1 ? "board" : "boards"}
        {t.power_play ? " with Power Play" : ""} · {t.draws} {t.draws === 1 ? "drawing" : "drawings"} · cost{" "}
        {dollars(t.cost_cents)}
      </p>
      {t.state === "refused" && <p role="alert">This sale was refused ({t.refusal ?? "unknown"}); nothing was taken.</p>}
      <ol>
        {t.boards.map((b) => (
          <li key={b.board}>
            <Balls whites={b.whites} powerball={b.powerball} />
            {b.quick_pick ? " (quick pick)" : ""}
          </li>
        ))}
      </ol>
      <ul>
        {t.drawings.map((d) => (
          <li key={d.draw_date}>
            {d.draw_date}: {DRAWING_STATES[d.state] ?? d.state}
            {d.winnings.length > 0
              ? `; won ${d.winnings
                  .map((w) => `${dollars(w.prize_cents)} on board ${w.board} (${TIER_NAMES[w.tier] ?? w.tier})`)
                  .join(", ")}`
              : d.state === "settled"
                ? "; no prize"
                : ""}
          </li>
        ))}
      </ul>
      {t.voided && <p>Taken out of later drawings when your break or exclusion began; their cost was returned.</p>}
    </>
  );
}

export function Balls(props: { whites: number[]; powerball: number }): JSX.Element {
  return (
    <span class="balls" role="img" aria-label={`${props.whites.join(", ")}, Powerball ${props.powerball}`}>
      {props.whites.map((w) => (
        <span key={w} class="ball white" aria-hidden="true">
          {w}
        </span>
      ))}
      <span class="ball red" aria-hidden="true">
        {props.powerball}
      </span>
    </span>
  );
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}
