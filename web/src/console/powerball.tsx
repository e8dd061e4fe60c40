// The console's Powerball: the drawing calendar in central time, each drawing's grand prize and
// how its results come to stand, the official results entered by two operators (dual control)
// with a disagreement said in words, and the certification and its prize table (prizes claimed
// at the lottery office are the Office tab's, console_office.tsx).
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Balls, TIER_NAMES } from "../shared/powerball";
import { api, centsOf, dollars, must, publicApi, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, Scroll, useAction, useLoad, WholeField, wholeIn } from "../shared/ui";

type Drawing = Schemas["PowerballDrawView"];

/** The drawing days shown: two weeks back (a drawing whose grand prize was never set waits for
 * it) and three weeks ahead. */
const DAYS_BACK = 14;
const DAYS_AHEAD = 21;

/** What each state means for the operator's next step. */
const STATES: Record<Drawing["state"], string> = {
  scheduled: "on sale",
  closed: "sales closed: awaiting the results",
  drawn: "results stand: settling",
  settled: "settled: awaiting certification",
  certified: "certified: prizes payable",
  disputed: "disputed: stopped",
};

const MULTIPLIERS = [2, 3, 4, 5, 10] as const;

/** Today's date in central time, where the game keeps its days (YYYY-MM-DD). */
function todayCentral(): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "America/Chicago" }).format(new Date());
}

/** The Monday, Wednesday and Saturday drawing days around `today` (111-5-22), newest first. */
function drawDays(today: string): string[] {
  const [y, m, d] = today.split("-").map(Number) as [number, number, number];
  const days: string[] = [];
  for (let offset = DAYS_AHEAD; offset >= -DAYS_BACK; offset--) {
    const day = new Date(Date.UTC(y, m - 1, d + offset));
    if ([1, 3, 6].includes(day.getUTCDay())) days.push(day.toISOString().slice(0, 10));
  }
  return days;
}

function weekday(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" });
}

export function PowerballDesk(): JSX.Element {
  const [chosen, setChosen] = useState<string | null>(null);
  const held = useLoad(() => must(publicApi.GET("/v1/powerball/draws", { params: { query: { limit: 40 } } })), [chosen]);
  const byDate = new Map((held.value?.items ?? []).map((d) => [d.draw_date, d]));
  const today = todayCentral();
  return (
    <div>
      <h2>Powerball</h2>
      <section class="box" aria-labelledby="pb-calendar-title">
        <h3 id="pb-calendar-title">Drawing calendar (central time)</h3>
        <p class="hint">
          Drawings are held on Monday, Wednesday and Saturday nights; sales close at 8:59 p.m. A drawing is on record
          once it is asked for (a sale, or its grand prize set here).
        </p>
        <ProblemBanner staff problem={held.problem} />
        <Scroll label="Drawing calendar" cards>
          <table data-testid="pb-calendar">
            <thead>
              <tr>
                <th scope="col">Drawing</th>
                <th scope="col">State</th>
                <th scope="col" class="num">
                  Grand prize
                </th>
                <th scope="col">Results</th>
                <th scope="col">
                  <span class="visually-hidden">Open</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {drawDays(today).map((date) => {
                const d = byDate.get(date);
                return (
                  <tr key={date} aria-current={date === chosen ? "true" : undefined}>
                    <td>
                      {weekday(date)} {date}
                      {date === today ? " (today)" : ""}
                    </td>
                    <td>{d ? STATES[d.state] : "not on record"}</td>
                    <td class="num">{d?.advertised_cents != null ? dollars(d.advertised_cents) : "not set"}</td>
                    <td>{d?.results ? <Balls whites={d.results.whites} powerball={d.results.powerball} /> : "—"}</td>
                    <td>
                      <button type="button" data-open={date} onClick={() => setChosen(date)}>
                        Open <span class="visually-hidden">the {date} drawing</span>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Scroll>
      </section>
      {chosen && <DrawingDesk date={chosen} held={byDate.has(chosen)} onChange={held.reload} />}
    </div>
  );
}

/** One drawing: what it holds, and the operator's steps on it. Read again every 3 s, as the
 * scheduler moves it on (closes, exports, settles). */
function DrawingDesk(props: { date: string; held: boolean; onChange: () => void }): JSX.Element {
  const [round, setRound] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(() => setRound((r) => r + 1), 3000);
    return () => window.clearInterval(timer);
  }, []);
  const [madeHere, setMadeHere] = useState<Drawing | null>(null);
  const known = props.held || madeHere !== null;
  const drawing = useLoad(
    () =>
      known
        ? must(publicApi.GET("/v1/powerball/draws/{date}", { params: { path: { date: props.date } } }))
        : Promise.resolve(null),
    [props.date, known, round],
  );
  const d = drawing.value ?? (madeHere?.draw_date === props.date ? madeHere : null);
  const changed = (now: Drawing) => {
    setMadeHere(now);
    props.onChange();
  };
  return (
    <section class="box" aria-labelledby="pb-drawing-title" data-testid="pb-drawing">
      <h3 id="pb-drawing-title">
        The {weekday(props.date)} {props.date} drawing
      </h3>
      <ProblemBanner staff problem={drawing.problem} />
      {d ? (
        <dl class="facts">
          <dt>State</dt>
          <dd data-testid="pb-state">{STATES[d.state]}</dd>
          <dt>Sales close</dt>
          <dd>{when(d.sales_close_at)}</dd>
          <dt>Drawing</dt>
          <dd>{when(d.draw_at)}</dd>
          <dt>Grand prize</dt>
          <dd>
            {d.advertised_cents != null && d.cash_value_cents != null
              ? `${dollars(d.advertised_cents)} advertised, ${dollars(d.cash_value_cents)} cash`
              : "not set: the drawing waits for it"}
          </dd>
          <dt>Results</dt>
          <dd>
            {d.results_mode === "entered" ? "entered by two operators" : "drawn by the service"}
            {d.results && (
              <>
                : <Balls whites={d.results.whites} powerball={d.results.powerball} />, Power Play{" "}
                {d.results.multiplier}x
              </>
            )}
          </dd>
          {d.tickets != null && (
            <>
              <dt>Frozen wager set</dt>
              <dd>
                {d.tickets} tickets, {d.plays ?? 0} plays, {dollars(d.wagers_cents ?? 0)}
                {d.export_sha256 ? ` (SHA-256 ${d.export_sha256.slice(0, 16)}…)` : ""}
              </dd>
            </>
          )}
          {d.dispute && (
            <>
              <dt>Dispute</dt>
              <dd role="alert">{d.dispute}</dd>
            </>
          )}
        </dl>
      ) : (
        <p class="hint">Not on record yet: setting its grand prize holds it.</p>
      )}
      {/* Set before the close; after it only when it was never set (the drawing waits for it). */}
      {(!d || d.state === "scheduled" || (d.advertised_cents == null && ["closed", "drawn"].includes(d.state))) && (
        <GrandPrizeForm date={props.date} onSet={changed} />
      )}
      {d?.state === "scheduled" && <ResultsModeForm drawing={d} onSet={changed} />}
      {d?.state === "closed" && d.results_mode === "entered" && <ResultsEntry date={props.date} onStand={changed} />}
      {d?.state === "settled" && (
        <p class="notice">
          Settled. The control system certifies it: <code>lotto verify-draw {props.date}</code> recounts every prize
          tier from the frozen export and certifies only an exact agreement.
        </p>
      )}
      {d?.prize_table && <PrizeTable lines={d.prize_table} />}
    </section>
  );
}

function GrandPrizeForm(props: { date: string; onSet: (d: Drawing) => void }): JSX.Element {
  const [advertised, setAdvertised] = useState("");
  const [cash, setCash] = useState("");
  const set = useAction();
  const advertisedCents = centsOf(advertised);
  const cashCents = centsOf(cash);
  return (
    <form
      aria-label="Grand prize"
      onSubmit={(e) => {
        e.preventDefault();
        void set.run(async () => {
          if (advertisedCents === null || cashCents === null) return;
          props.onSet(
            await must(
              api.staff.PUT("/v1/powerball/draws/{date}/grand-prize", {
                params: { path: { date: props.date } },
                body: { advertised_cents: advertisedCents, cash_value_cents: cashCents },
              }),
            ),
          );
        });
      }}
    >
      <div class="row">
        <Field id="pb-advertised" label="Advertised grand prize ($)" inputMode="decimal" value={advertised} onInput={setAdvertised} />
        <Field id="pb-cash" label="Cash value ($)" inputMode="decimal" value={cash} onInput={setCash} />
      </div>
      <button type="submit" disabled={set.busy || advertisedCents === null || cashCents === null}>
        Set the grand prize
      </button>
      <ProblemBanner staff problem={set.problem} />
    </form>
  );
}

function ResultsModeForm(props: { drawing: Drawing; onSet: (d: Drawing) => void }): JSX.Element {
  const set = useAction();
  const other = props.drawing.results_mode === "entered" ? "drawn" : "entered";
  return (
    <div class="row">
      <button
        type="button"
        disabled={set.busy}
        onClick={() =>
          void set.run(async () => {
            props.onSet(
              await must(
                api.staff.PUT("/v1/powerball/draws/{date}/results-mode", {
                  params: { path: { date: props.drawing.draw_date } },
                  body: { results_mode: other },
                }),
              ),
            );
          })
        }
      >
        {other === "drawn" ? "Draw the results by the service instead" : "Have two operators enter the results instead"}
      </button>
      <ProblemBanner staff problem={set.problem} />
    </div>
  );
}

/** One operator's entry of the official results; a second, different operator's agreeing entry
 * makes them stand (dual control). */
function ResultsEntry(props: { date: string; onStand: (d: Drawing) => void }): JSX.Element {
  const [whites, setWhites] = useState(["", "", "", "", ""]);
  const [powerball, setPowerball] = useState("");
  const [multiplier, setMultiplier] = useState<(typeof MULTIPLIERS)[number]>(2);
  const [said, setSaid] = useState<string | null>(null);
  const enter = useAction();
  const numbers = whites.map((w) => wholeIn(w, 1, 69));
  const red = wholeIn(powerball, 1, 26);
  const complete = numbers.every((n) => n !== null) && new Set(numbers).size === 5 && red !== null;
  return (
    <form
      aria-labelledby="pb-entry-title"
      data-testid="pb-entry"
      onSubmit={(e) => {
        e.preventDefault();
        setSaid(null);
        void enter.run(async () => {
          if (!complete || red === null) return;
          const entered = await must(
            api.staff.POST("/v1/powerball/draws/{date}/results", {
              params: { path: { date: props.date } },
              body: { whites: numbers as number[], powerball: red, multiplier },
            }),
          );
          if (entered.outcome === "results_stand") {
            setSaid("The two entries agree: the results stand.");
            props.onStand(entered.drawing);
          } else {
            setSaid("Your entry is recorded. It waits for a different operator to enter the results too.");
          }
        });
      }}
    >
      <h4 id="pb-entry-title">Enter the official results</h4>
      <div class="row">
        {whites.map((w, i) => (
          <WholeField
            key={i}
            id={`pb-white-${i + 1}`}
            label={`White ball ${i + 1}`}
            min={1}
            max={69}
            value={w}
            onInput={(text) => setWhites((now) => now.map((x, j) => (j === i ? text : x)))}
          />
        ))}
        <WholeField id="pb-red" label="Powerball" min={1} max={26} value={powerball} onInput={setPowerball} />
        <label class="field" for="pb-multiplier">
          <span>Power Play</span>
          <select
            id="pb-multiplier"
            value={multiplier}
            onChange={(e) => setMultiplier(Number(e.currentTarget.value) as (typeof MULTIPLIERS)[number])}
          >
            {MULTIPLIERS.map((m) => (
              <option key={m} value={m}>
                {m}x
              </option>
            ))}
          </select>
        </label>
      </div>
      <button type="submit" disabled={enter.busy || !complete}>
        Enter the results
      </button>
      {said && (
        <p class="notice" role="status" data-testid="pb-entry-said">
          {said}
        </p>
      )}
      <ProblemBanner staff problem={enter.problem} />
    </form>
  );
}

function PrizeTable(props: { lines: Schemas["PrizeLineView"][] }): JSX.Element {
  return (
    <Scroll label="Certified prize table">
      <table data-testid="pb-prize-table">
        <caption>Certified prize table</caption>
        <thead>
          <tr>
            <th scope="col">Tier</th>
            <th scope="col">Power Play</th>
            <th scope="col" class="num">
              Winners
            </th>
            <th scope="col" class="num">
              Prize each
            </th>
            <th scope="col" class="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {props.lines.map((l) => (
            <tr key={`${l.tier}-${l.power_play}`}>
              <td>{TIER_NAMES[l.tier] ?? l.tier}</td>
              <td>{l.power_play ? "with" : "without"}</td>
              <td class="num">{l.winners}</td>
              <td class="num">{dollars(l.prize_cents)}</td>
              <td class="num">{dollars(l.total_cents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}
