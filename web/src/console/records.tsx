// The console's view of the significant-events log (issue 50, ADR 0019): operators and auditors
// find events by player, retailer, terminal, drawing, staff member, kind and period; download a
// period as JSON lines or CSV; walk the chain; and check an export file against it. Exports of
// more than a few megabytes are for `GET /v1/events/export` or `lotto events` instead.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, must, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, Scroll, useAction, usePages } from "../shared/ui";

type Kind = Schemas["EventKind"];
type Check = Schemas["LogCheck"];
type ExportCheck = Schemas["ExportCheckView"];

const KINDS: Kind[] = [
  "registration",
  "login",
  "login_failed",
  "lockout",
  "identity_check",
  "location_check",
  "limit_change",
  "break",
  "exclusion",
  "closure",
  "deposit",
  "deposit_failed",
  "withdrawal",
  "withdrawal_failed",
  "game_session_start",
  "game_session_end",
  "large_win",
  "void",
  "draw_closed",
  "draw_results",
  "draw_settled",
  "draw_certification",
  "print_run",
  "pack",
  "prize_paid",
  "staff_action",
  "process_started",
  "process_stopped",
  "unavailability",
  "log_archive",
];

interface Filters {
  player?: string;
  retailer?: string;
  terminal?: string;
  drawing?: string;
  staff?: string;
  kind?: Kind;
  from?: string;
  to?: string;
}

/** A `datetime-local` value (the browser's time) as RFC 3339, or nothing. */
function instant(local: string): string | undefined {
  if (local.trim() === "") return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

export function EventLog(): JSX.Element {
  const [draft, setDraft] = useState({ subject: "player", value: "", kind: "", from: "", to: "" });
  const [filters, setFilters] = useState<Filters>({});
  const pages = usePages(
    (after) => must(api.staff.GET("/v1/events", { params: { query: { ...filters, limit: 100, after } } })),
    [filters],
  );
  return (
    <section class="box" aria-labelledby="events-title" data-testid="event-log">
      <h3 id="events-title">Significant events</h3>
      <form
        aria-label="Find events"
        onSubmit={(e) => {
          e.preventDefault();
          const value = draft.value.trim();
          setFilters({
            ...(value ? { [draft.subject]: value } : {}),
            kind: draft.kind === "" ? undefined : (draft.kind as Kind),
            from: instant(draft.from),
            to: instant(draft.to),
          });
        }}
      >
        <div class="row">
          <label class="field" for="events-subject">
            <span>About</span>
            <select
              id="events-subject"
              value={draft.subject}
              onChange={(e) => setDraft({ ...draft, subject: e.currentTarget.value })}
            >
              <option value="player">a player (id)</option>
              <option value="retailer">a retailer (id)</option>
              <option value="terminal">a terminal (id)</option>
              <option value="drawing">a drawing (keno:123, powerball:2026-12-05)</option>
              <option value="staff">a member of staff (id)</option>
            </select>
          </label>
          <Field id="events-value" label="Who or which" value={draft.value} onInput={(v) => setDraft({ ...draft, value: v })} />
          <label class="field" for="events-kind">
            <span>Kind</span>
            <select id="events-kind" value={draft.kind} onChange={(e) => setDraft({ ...draft, kind: e.currentTarget.value })}>
              <option value="">every kind</option>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {k.replace(/_/g, " ")}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="row">
          <Field id="events-from" type="datetime-local" label="From" value={draft.from} onInput={(v) => setDraft({ ...draft, from: v })} />
          <Field id="events-to" type="datetime-local" label="Until" value={draft.to} onInput={(v) => setDraft({ ...draft, to: v })} />
          <button type="submit">Find</button>
        </div>
      </form>
      <ProblemBanner staff problem={pages.problem} />
      {pages.loaded && pages.items.length === 0 && <p>No event matches.</p>}
      <Scroll label="Events" cards>
        <table data-testid="events">
          <thead>
            <tr>
              <th scope="col" class="num">
                #
              </th>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">About</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((e) => (
              <tr key={e.seq} data-kind={e.kind}>
                <td class="num">{e.seq}</td>
                <td>{when(e.occurred_at)}</td>
                <td>
                  {e.kind.replace(/_/g, " ")} <span class="hint">({e.service})</span>
                </td>
                <td>
                  {[
                    e.player_id && `player ${e.player_id}`,
                    e.retailer_id && `retailer ${e.retailer_id}`,
                    e.terminal && `terminal ${e.terminal}`,
                    e.drawing && `drawing ${e.drawing}`,
                    e.staff_id && `staff ${e.staff_id}`,
                  ]
                    .filter(Boolean)
                    .join(", ")}
                </td>
                <td>
                  <code>{JSON.stringify(e.details)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {pages.next && (
        <button type="button" disabled={pages.busy} onClick={pages.older}>
          More
        </button>
      )}
      <Export from={instant(draft.from)} to={instant(draft.to)} />
      <ChainWalk />
      <CheckFile />
    </section>
  );
}

/** A period's export, prepared for download (the period chosen above, or the last day). */
function Export(props: { from?: string; to?: string }): JSX.Element {
  const prepare = useAction();
  const [file, setFile] = useState<{ href: string; name: string } | null>(null);
  const make = (format: "jsonl" | "csv") =>
    void prepare.run(async () => {
      const to = props.to ?? new Date().toISOString();
      const from = props.from ?? new Date(Date.parse(to) - 24 * 3600 * 1000).toISOString();
      const { data, error, response } = await api.staff.GET("/v1/events/export", {
        params: { query: { from, to, format } },
        parseAs: "text",
      });
      if (!response.ok) throw error;
      const type = format === "csv" ? "text/csv" : "application/jsonl";
      const name = `events-${from.slice(0, 10)}-${to.slice(0, 10)}.${format}`;
      // A data: address, which the page's policy lets it read back (a blob: one it may not fetch).
      setFile({ href: `data:${type};charset=utf-8,${encodeURIComponent(data ?? "")}`, name });
    });
  return (
    <div class="row" data-testid="events-export">
      <button type="button" disabled={prepare.busy} onClick={() => make("jsonl")}>
        Prepare JSON lines
      </button>
      <button type="button" disabled={prepare.busy} onClick={() => make("csv")}>
        Prepare CSV
      </button>
      {file && (
        <a href={file.href} download={file.name} data-testid="events-download">
          Download {file.name}
        </a>
      )}
      <ProblemBanner staff problem={prepare.problem} />
    </div>
  );
}

/** The chain walked from its first event kept, every hash recomputed. */
function ChainWalk(): JSX.Element {
  const walk = useAction();
  const [found, setFound] = useState<Check | null>(null);
  return (
    <div data-testid="events-chain">
      <button
        type="button"
        disabled={walk.busy}
        onClick={() =>
          void walk.run(async () => {
            setFound(await must(api.staff.GET("/v1/events/chain")));
          })
        }
      >
        Walk the chain
      </button>
      {found && (
        <p role="status">
          {found.intact ? "Intact" : `Broken at event ${found.first_broken_seq ?? "?"}`}: {found.events} events checked
          {found.complete ? "" : " (more to walk)"}; the last hash <code>{found.head_hash ?? "—"}</code>; {found.pending}{" "}
          waiting;{" "}
          {found.archived_months} months archived
          {found.oldest_pending_at ? `; the oldest waiting since ${when(found.oldest_pending_at)}` : ""}.
        </p>
      )}
      <ProblemBanner staff problem={walk.problem} />
    </div>
  );
}

/** An export file checked on its own and against the chain here. */
function CheckFile(): JSX.Element {
  const check = useAction();
  const [found, setFound] = useState<ExportCheck | null>(null);
  return (
    <div data-testid="events-check">
      <label class="field" for="events-file">
        <span>Check an export (JSON lines)</span>
        <input
          id="events-file"
          type="file"
          accept=".jsonl,application/jsonl"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (!file) return;
            void check.run(async () => {
              const text = await file.text();
              setFound(
                await must(
                  api.staff.POST("/v1/events/export-check", {
                    body: text,
                    bodySerializer: (body: string) => body,
                    headers: { "Content-Type": "application/octet-stream" },
                  }),
                ),
              );
            });
          }}
        />
      </label>
      {found && (
        <p role="status" data-testid="events-check-result">
          {found.file.intact ? "The file is intact" : `The file is not intact: ${found.file.problem ?? ""}`};{" "}
          {found.chain}.
        </p>
      )}
      <ProblemBanner staff problem={check.problem} />
    </div>
  );
}
