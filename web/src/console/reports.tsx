// The console's daily reports (issue 50): each gaming day's handle, prizes and revenue per game
// and channel, with the reconciliation of every player account that moved money, as the ledger
// made and kept them after the day ended; a range of days charted; a day's report downloaded as
// CSV; the day still open shown as it stands, marked provisional.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { BarChart } from "../shared/chart";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";

type Report = Schemas["DailyReport"];
type Figures = Schemas["Figures"];

/** `day` moved by `days` (dates as `YYYY-MM-DD`). */
function shifted(day: string, days: number): string {
  const at = new Date(`${day}T12:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

export function DailyReports(): JSX.Element {
  const [range, setRange] = useState<{ from?: string; to?: string }>({});
  const [draft, setDraft] = useState({ from: "", to: "" });
  const [day, setDay] = useState<string | null>(null);
  const days = useLoad(
    () => must(api.staff.GET("/v1/reports/daily", { params: { query: { from: range.from, to: range.to } } })),
    [range.from, range.to],
  );
  const listed = days.value?.days ?? [];
  return (
    <section class="box" aria-labelledby="reports-title" data-testid="daily-reports">
      <h3 id="reports-title">Daily reports</h3>
      <p class="hint">
        Each gaming day ends at the hour the ledger is configured with (6 a.m. central time by default); its report is
        made once after that, from the journal, and kept.
        {days.value && <> The day now open is {days.value.today}.</>}
      </p>
      <form
        aria-label="Choose the days"
        onSubmit={(e) => {
          e.preventDefault();
          setRange({ from: draft.from || undefined, to: draft.to || undefined });
          // the same days again: read again (a day opened meanwhile may have been made)
          days.reload();
        }}
      >
        <div class="row">
          <Field id="reports-from" type="date" label="From" value={draft.from} onInput={(v) => setDraft({ ...draft, from: v })} />
          <Field id="reports-to" type="date" label="To" value={draft.to} onInput={(v) => setDraft({ ...draft, to: v })} />
          <button type="submit">Show</button>
          {days.value && (
            <button type="button" onClick={() => setDay(days.value?.today ?? null)}>
              Today so far
            </button>
          )}
        </div>
      </form>
      <ProblemBanner staff problem={days.problem} />
      {days.value && listed.length === 0 && <p>No report kept for these days yet.</p>}
      {listed.length > 0 && (
        <BarChart
          title="Handle and gross gaming revenue by day"
          labels={listed.map((d) => d.gaming_day)}
          axis="Gaming day"
          measure="Dollars"
          series={[
            { name: "Handle", values: listed.map((d) => d.totals.handle) },
            { name: "Gross gaming revenue", values: listed.map((d) => d.totals.gross_gaming_revenue) },
          ]}
          format={dollars}
        />
      )}
      {listed.length > 0 && (
        <Scroll label="The days" cards>
          <table data-testid="report-days">
            <thead>
              <tr>
                <th scope="col">Gaming day</th>
                <th scope="col" class="num">
                  Handle
                </th>
                <th scope="col" class="num">
                  Prizes won
                </th>
                <th scope="col" class="num">
                  Revenue
                </th>
                <th scope="col">Accounts</th>
                <th scope="col">Report</th>
              </tr>
            </thead>
            <tbody>
              {listed.map((d) => (
                <tr key={d.gaming_day} data-day={d.gaming_day}>
                  <th scope="row">{d.gaming_day}</th>
                  <td class="num">{dollars(d.totals.handle)}</td>
                  <td class="num">{dollars(d.totals.prizes_won)}</td>
                  <td class="num">{dollars(d.totals.gross_gaming_revenue)}</td>
                  <td>
                    {d.no_activity
                      ? "No activity"
                      : `${d.accounts_active} active, ${d.accounts_unreconciled === 0 ? "all reconciled" : `${d.accounts_unreconciled} not reconciled`}`}
                  </td>
                  <td>
                    <button type="button" onClick={() => setDay(d.gaming_day)}>
                      Open {d.gaming_day}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      {day && <DayReport key={day} day={day} onDay={setDay} />}
    </section>
  );
}

function FiguresCells(props: { f: Figures }): JSX.Element {
  const { f } = props;
  return (
    <>
      <td class="num">{f.plays}</td>
      <td class="num">{dollars(f.handle)}</td>
      <td class="num">{dollars(f.refunds)}</td>
      <td class="num">{dollars(f.prizes_won)}</td>
      <td class="num">{dollars(f.prizes_paid)}</td>
      <td class="num">{dollars(f.prizes_expired)}</td>
      <td class="num">{dollars(f.gross_gaming_revenue)}</td>
    </>
  );
}

/** One day's report: its lines, totals, liabilities and reconciliation, and its CSV. */
function DayReport(props: { day: string; onDay: (day: string) => void }): JSX.Element {
  // JSON unless CSV is asked for (the contract names both).
  const report = useLoad(
    async () => (await must(api.staff.GET("/v1/reports/daily/{day}", { params: { path: { day: props.day } } }))) as Report,
    [props.day],
  );
  const r: Report | undefined = report.value;
  return (
    <article class="box" aria-labelledby="report-day-title" data-testid="daily-report">
      <h4 id="report-day-title">
        Gaming day {props.day}
        {r?.provisional ? " (provisional: the day is not over)" : ""}
      </h4>
      <div class="row">
        <button type="button" onClick={() => props.onDay(shifted(props.day, -1))}>
          The day before
        </button>
        <button type="button" onClick={() => props.onDay(shifted(props.day, 1))}>
          The day after
        </button>
      </div>
      <ProblemBanner staff problem={report.problem} />
      {r && (
        <>
          <p data-testid="report-made">
            {when(r.opens_at)} to {when(r.closes_at)}; {r.provisional ? "figures so far, made" : "made"} {when(r.made_at)}{" "}
            by ledger {r.software_version} (report rules {r.rules_version}).
          </p>
          {r.no_activity && <p data-testid="report-no-activity">No activity: no money moved in this gaming day.</p>}
          <p role="status" data-testid="report-reconciliation">
            {r.accounts_unreconciled === 0
              ? `Every player account reconciles (${r.accounts_active} moved money).`
              : `${r.accounts_unreconciled} of ${r.accounts_active} player accounts do not reconcile.`}
          </p>
          {r.lines.length > 0 && (
            <Scroll label="The day's games" cards>
              <table data-testid="report-lines">
                <thead>
                  <tr>
                    <th scope="col">Game</th>
                    <th scope="col">Channel</th>
                    <th scope="col" class="num">
                      Plays
                    </th>
                    <th scope="col" class="num">
                      Handle
                    </th>
                    <th scope="col" class="num">
                      Refunds
                    </th>
                    <th scope="col" class="num">
                      Prizes won
                    </th>
                    <th scope="col" class="num">
                      Prizes paid
                    </th>
                    <th scope="col" class="num">
                      Expired
                    </th>
                    <th scope="col" class="num">
                      Revenue
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {r.lines.map((l) => (
                    <tr key={`${l.game}-${l.channel}`} data-game={l.game} data-channel={l.channel}>
                      <th scope="row">{l.game}</th>
                      <td>{l.channel}</td>
                      <FiguresCells f={l.figures} />
                    </tr>
                  ))}
                  <tr data-game="total">
                    <th scope="row">Total</th>
                    <td />
                    <FiguresCells f={r.totals} />
                  </tr>
                </tbody>
              </table>
            </Scroll>
          )}
          {r.liabilities.length > 0 && (
            <Scroll label="Liabilities at the close">
              <table data-testid="report-liabilities">
                <thead>
                  <tr>
                    <th scope="col">Liability at the close</th>
                    <th scope="col" class="num">
                      Balance
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {r.liabilities.map((l) => (
                    <tr key={l.account_id}>
                      <th scope="row">
                        {l.owner} ({l.kind.replace(/_/g, " ")})
                      </th>
                      <td class="num">{dollars(l.balance)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          )}
          <Download day={props.day} provisional={r.provisional} />
        </>
      )}
    </article>
  );
}

/** The day's CSV, prepared for download. */
function Download(props: { day: string; provisional: boolean }): JSX.Element {
  const prepare = useAction();
  const [href, setHref] = useState<string | null>(null);
  const name = `daily-report-${props.provisional ? "provisional-" : ""}${props.day}.csv`;
  return (
    <div class="row" data-testid="report-export">
      <button
        type="button"
        disabled={prepare.busy}
        onClick={() =>
          void prepare.run(async () => {
            const { data, error, response } = await api.staff.GET("/v1/reports/daily/{day}", {
              params: { path: { day: props.day }, query: { format: "csv" } },
              parseAs: "text",
            });
            if (!response.ok) throw error;
            // A data: address, which the page's policy lets it read back.
            setHref(`data:text/csv;charset=utf-8,${encodeURIComponent(data ?? "")}`);
          })
        }
      >
        Prepare CSV
      </button>
      {href && (
        <a href={href} download={name} data-testid="report-download">
          Download {name}
        </a>
      )}
      <ProblemBanner staff problem={prepare.problem} />
    </div>
  );
}
