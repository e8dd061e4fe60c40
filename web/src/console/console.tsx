// The operator's console: the draw schedule and results (live), the Powerball desk, prizes paid
// at the lottery office with their W-2G records, print runs followed as jobs, packs and retailers,
// instant liability beside the ledger, validations by retailer with the unusual-patterns report,
// the audit chains verified, every game's PAR sheet as charts and tables, players looked up, and
// player protection (exclusion lists, dormant accounts), identity reviews and balance adjustments
// waiting for a second operator, the significant-events log, and the daily reports.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { OfficeDesk } from "./office";
import { AdjustmentQueue } from "./adjustments";
import { EventLog } from "./records";
import { DailyReports } from "./reports";
import { SalesEnds } from "./sales_ends";
import { IdentityReviews } from "./identity_reviews";
import { PlayerLookup } from "./players";
import { PowerballDesk } from "./powerball";
import { PlayerProtection } from "./protection";
import { Packs, Retailers } from "./retail";
import { ParCharts } from "./par";
import { api, dollars, must, publicApi, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, Scroll, useAction, useLiveDraws, useLoad } from "../shared/ui";
import { AreaShell } from "../shared/area";

const CONSOLE_TABS = [
  { id: "draws", title: "Draws" },
  { id: "powerball", title: "Powerball" },
  { id: "office", title: "Office claims" },
  { id: "print", title: "Print runs" },
  { id: "packs", title: "Packs" },
  { id: "retailers", title: "Retailers" },
  { id: "liability", title: "Liability" },
  { id: "validations", title: "Validations" },
  { id: "audit", title: "Audit" },
  { id: "par", title: "PAR sheets" },
  { id: "players", title: "Players" },
  { id: "protection", title: "Player protection" },
  { id: "records", title: "Records" },
  { id: "reports", title: "Daily reports" },
] as const;
type ConsoleTab = (typeof CONSOLE_TABS)[number]["id"];

export function ConsoleScreens(): JSX.Element {
  const [tab, setTab] = useState<ConsoleTab>("draws");
  const me = useLoad(() => must(api.staff.GET("/v1/me")), []);
  return (
    <AreaShell
      area="staff"
      who={
        <p data-testid="console-who">
          Operator console
          {me.value?.username && (
            <>
              {" "}
              · logged in as <strong>{me.value.username}</strong> ({me.value.role})
            </>
          )}
        </p>
      }
      leave="Log out"
      label="Console"
      tabs={CONSOLE_TABS}
      current={tab}
      onSelect={setTab}
    >
      {tab === "draws" && <Draws />}
      {tab === "powerball" && <PowerballDesk />}
      {tab === "office" && <OfficeDesk />}
      {tab === "print" && <PrintRuns />}
      {tab === "packs" && <Packs />}
      {tab === "retailers" && <Retailers />}
      {tab === "liability" && <Liability />}
      {tab === "validations" && <Validations />}
      {tab === "audit" && <Audit />}
      {tab === "par" && <ParCharts />}
      {tab === "players" && (
        <>
          <IdentityReviews />
          <AdjustmentQueue />
          <PlayerLookup />
        </>
      )}
      {tab === "protection" && <PlayerProtection />}
      {tab === "records" && <EventLog />}
      {tab === "reports" && <DailyReports />}
    </AreaShell>
  );
}

function Draws(): JSX.Element {
  const live = useLiveDraws();
  const keno = useLoad(() => must(publicApi.GET("/v1/keno/draws", { params: { query: { limit: 10 } } })), [
    live.drawn?.number,
    live.open?.number,
  ]);
  const next = useLoad(() => must(publicApi.GET("/v1/powerball/draws/next")), []);
  return (
    <div>
      <h2>Castle Keno draws</h2>
      <p class="hint" aria-live="polite">
        {live.connected ? "Live: new results appear as they are drawn." : "Connecting to live results…"}
      </p>
      <ProblemBanner staff problem={keno.problem} />
      <Scroll label="Keno draws" cards>
        <table data-testid="keno-draws">
          <thead>
            <tr>
              <th scope="col">Draw</th>
              <th scope="col">Closes</th>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Entries
              </th>
              <th scope="col" class="num">
                Wagers
              </th>
              <th scope="col">Numbers</th>
            </tr>
          </thead>
          <tbody>
            {(keno.value?.items ?? []).map((d) => (
              <tr key={d.number}>
                <td>{d.number}</td>
                <td>{when(d.sales_close_at)}</td>
                <td>{d.state}</td>
                <td class="num">{d.entries ?? "—"}</td>
                <td class="num">{d.wagers_cents == null ? "—" : dollars(d.wagers_cents)}</td>
                <td>{d.numbers?.join(" ") ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <h2>Powerball</h2>
      <ProblemBanner staff problem={next.problem} />
      {next.value && (
        <p>
          Next drawing {next.value.draw_date}: sales close {when(next.value.sales_close_at)}, drawn{" "}
          {when(next.value.draw_at)}; grand prize{" "}
          {next.value.advertised_cents == null ? "not set" : dollars(next.value.advertised_cents)}.
        </p>
      )}
      {live.powerball?.results && (
        <p>
          Last results ({live.powerball.draw_date}): {live.powerball.results.whites.join(" ")} + Powerball{" "}
          {live.powerball.results.powerball}
        </p>
      )}
    </div>
  );
}

function PrintRuns(): JSX.Element {
  const games = useLoad(() => must(publicApi.GET("/v1/instant/games")), []);
  const jobs = useLoad(() => must(api.staff.GET("/v1/instant/print-jobs", { params: { query: { limit: 10 } } })), []);
  const [job, setJob] = useState<Schemas["PrintJobView"] | null>(null);
  const act = useAction();
  const start = (game: number) =>
    act.run(async () => {
      let view = await must(api.staff.POST("/v1/instant/games/{number}/print-runs", { params: { path: { number: game } } }));
      setJob(view);
      while (view.state === "queued" || view.state === "running") {
        await new Promise((r) => setTimeout(r, 500));
        view = await must(api.staff.GET("/v1/instant/print-jobs/{id}", { params: { path: { id: view.id } } }));
        setJob(view);
      }
      jobs.reload();
    });
  return (
    <div>
      <h2>Print runs</h2>
      <ProblemBanner staff problem={games.problem ?? act.problem} />
      {job && (
        <div class="box" role="status" data-testid="print-job">
          <p>
            Game {job.game}: {job.state}
            {job.error ? ` — ${job.error}` : ""}
          </p>
          <label for="print-progress">Tickets stored</label>{" "}
          <progress id="print-progress" max={job.tickets_total} value={job.tickets_stored}>
            {job.tickets_stored} of {job.tickets_total}
          </progress>{" "}
          {job.tickets_stored.toLocaleString()} of {job.tickets_total.toLocaleString()}
        </div>
      )}
      <Scroll label="Print runs" cards>
        <table>
          <thead>
            <tr>
              <th scope="col">Game</th>
              <th scope="col">Name</th>
              <th scope="col" class="num">
                Price
              </th>
              <th scope="col" class="num">
                Tickets
              </th>
              <th scope="col">Run</th>
            </tr>
          </thead>
          <tbody>
            {(games.value ?? []).map((g) => (
              <tr key={g.number}>
                <td>{g.number}</td>
                <td>{g.name}</td>
                <td class="num">{dollars(g.price_cents)}</td>
                <td class="num">{g.tickets_ordered.toLocaleString()}</td>
                <td>
                  <button type="button" disabled={act.busy} onClick={() => void start(g.number)}>
                    Print game {g.number}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <h3>Recent jobs</h3>
      <ul>
        {(jobs.value?.items ?? []).map((j) => (
          <li key={j.id}>
            {when(j.created_at)} · game {j.game} · {j.state} · {j.tickets_stored.toLocaleString()} tickets
          </li>
        ))}
      </ul>
    </div>
  );
}

function Liability(): JSX.Element {
  const rows = useLoad(() => must(api.staff.GET("/v1/instant/liability")), []);
  return (
    <div>
      <h2>Instant prize liability</h2>
      <ProblemBanner staff problem={rows.problem} />
      <Scroll label="Instant prize liability">
        <table>
          <thead>
            <tr>
              <th scope="col">Game</th>
              <th scope="col" class="num">
                Printed
              </th>
              <th scope="col" class="num">
                Paid
              </th>
              <th scope="col" class="num">
                Outstanding
              </th>
              <th scope="col" class="num">
                Ledger
              </th>
            </tr>
          </thead>
          <tbody>
            {(rows.value ?? []).map((r) => (
              <tr key={r.game}>
                <th scope="row">
                  {r.game} {r.name}
                </th>
                <td class="num">{dollars(r.printed_cents)}</td>
                <td class="num">{dollars(r.paid_cents)}</td>
                <td class="num">{dollars(r.outstanding_cents)}</td>
                <td class="num">{r.ledger_balance_cents == null ? "—" : dollars(r.ledger_balance_cents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <SalesEnds games={(rows.value ?? []).map((r) => ({ game: r.game, name: r.name }))} />
    </div>
  );
}

function Validations(): JSX.Element {
  const rows = useLoad(() => must(api.staff.GET("/v1/instant/validations/by-retailer")), []);
  const unusual = useLoad(() => must(api.staff.GET("/v1/instant/reports/unusual-validations")), []);
  // Shops by the names the operator gave them; the id stays in the cell's title.
  const retailers = useLoad(() => must(api.staff.GET("/v1/retailers")), []);
  const shopName = (id: string) => retailers.value?.items.find((r) => r.id === id)?.name ?? id;
  return (
    <div>
      <h2>Validations by retailer</h2>
      <ProblemBanner staff problem={rows.problem ?? unusual.problem} />
      <Scroll label="Validations by retailer" cards>
        <table>
          <thead>
            <tr>
              <th scope="col">Retailer</th>
              <th scope="col" class="num">
                Scans
              </th>
              <th scope="col" class="num">
                Winners
              </th>
              <th scope="col" class="num">
                Won
              </th>
              <th scope="col">Flags</th>
            </tr>
          </thead>
          <tbody>
            {(rows.value ?? []).map((r) => (
              <tr key={r.retailer_id}>
                <td title={r.retailer_id}>{shopName(r.retailer_id)}</td>
                <td class="num">{r.scans}</td>
                <td class="num">{r.winners}</td>
                <td class="num">{dollars(r.winner_cents)}</td>
                <td>{unusual.value?.retailers.find((u) => u.retailer_id === r.retailer_id)?.flags.join(", ") ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </div>
  );
}

function Audit(): JSX.Element {
  const [reports, setReports] = useState<{ chain: string; report: Schemas["ChainReport"] }[]>([]);
  const act = useAction();
  const verify = () =>
    act.run(async () => {
      const draws = await must(api.staff.GET("/v1/draws/audit/verify"));
      const tables = await must(api.staff.GET("/v1/tables/audit/verify"));
      setReports([
        { chain: "Draw games", report: draws },
        { chain: "Table games", report: tables },
      ]);
    });
  return (
    <div>
      <h2>Audit chains</h2>
      <p class="hint">Every outcome is chained by hash; verifying walks each chain from its start.</p>
      <button type="button" disabled={act.busy} onClick={() => void verify()}>
        Verify the audit chains
      </button>
      <ProblemBanner staff problem={act.problem} />
      <div role="status" data-testid="audit">
        <ul>
          {reports.map(({ chain, report }) => (
            <li key={chain}>
              {chain}: {report.records.toLocaleString()} records,{" "}
              <strong>{report.intact ? "intact" : `broken at ${report.first_broken_seq ?? "?"}`}</strong>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
