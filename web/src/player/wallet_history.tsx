// The wallet's history as a statement: every transfer in the days chosen, newest first, in words
// people use, with the balance after each line, and the lines downloadable as CSV.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { DaysForm, gameName, ProblemBanner, Scroll, useAction, usePages } from "../shared/ui";

type Entry = Schemas["StatementEntry"];
type Days = { from?: string; to?: string };

/** The most lines one CSV gathers (20 pages of 500); a longer stretch is asked for in parts. */
const CSV_PAGES = 20;

/** What a line is, in words: its game and whether it was a stake or a win, or the payment. */
export function describe(e: Entry): string {
  const m = e.metadata as Record<string, unknown>;
  if (m["kind"] === "deposit") return "Deposit";
  if (m["money"] === "adjustment") return e.side === "credit" ? "Credit from the lottery" : "Correction by the lottery";
  if (m["payment"] === "withdrawal" || m["kind"] === "withdrawal" || e.kind !== "posted") {
    switch (e.kind) {
      case "pending":
        return "Cash-out requested (held)";
      case "post_pending":
        return "Cash-out paid";
      case "void_pending":
      case "expire_pending":
        return "Cash-out cancelled (hold released)";
      default:
        return e.side === "debit" ? "Cash-out" : "Cash-out returned";
    }
  }
  if (m["game"] !== undefined) {
    const game = gameName(m["game"]);
    if (m["void"] !== undefined) return `${game}: later drawings cancelled, cost returned`;
    return e.side === "debit" ? `${game}: stake` : `${game}: win or stake returned`;
  }
  return e.side === "debit" ? "Paid out" : "Received";
}

/** What the line did to the balance (a hold and its release: nothing). */
function change(e: Entry): number {
  if (e.kind !== "posted" && e.kind !== "post_pending") return 0;
  return e.side === "debit" ? -e.amount : e.amount;
}

function csvOf(entries: Entry[]): string {
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const money = (cents: number) => (cents / 100).toFixed(2);
  const lines = entries.map((e) =>
    [e.created_at, quote(describe(e)), e.kind, money(change(e)), money(e.balance_after), e.id].join(","),
  );
  return ["time,what,kind,amount,balance_after,transfer", ...lines].join("\n") + "\n";
}

const PAYMENT_STATES: Record<string, string> = {
  pending: "waiting for the payment provider",
  settling: "being recorded",
  succeeded: "done",
  failed: "declined",
};

/** The player's deposits and cash-outs as asked for, newest first, each with what became of it: a
 * declined deposit moved no money, so the history above never shows it; this list keeps it. */
export function Payments(props: { sent: number }): JSX.Element {
  const pages = usePages(
    (after) => must(api.player.GET("/v1/me/payments", { params: { query: { limit: 10, after } } })),
    [props.sent],
  );
  return (
    <section aria-labelledby="payments-title">
      <h3 id="payments-title">Deposits and cash-outs</h3>
      <ProblemBanner problem={pages.problem} />
      {pages.items.length === 0 && pages.loaded ? (
        <p class="hint">None yet.</p>
      ) : (
        <Scroll label="Deposits and cash-outs" cards>
          <table data-testid="payments">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((p) => (
                <tr key={p.id} data-state={p.state}>
                  <td>{when(p.created_at)}</td>
                  <td>{p.kind === "deposit" ? "Deposit" : "Cash-out"}</td>
                  <td class="num">{dollars(p.amount)}</td>
                  <td>
                    {PAYMENT_STATES[p.state] ?? p.state}
                    {p.failure ? `: ${p.failure}` : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      {pages.next && (
        <button type="button" disabled={pages.busy} onClick={pages.older}>
          Show older
        </button>
      )}
    </section>
  );
}

export function WalletHistory(props: { balance: number | undefined }): JSX.Element {
  const [days, setDays] = useState<Days>({});
  const pages = usePages(
    (after) => must(api.player.GET("/v1/me/wallet/entries", { params: { query: { ...days, limit: 50, after } } })),
    [days, props.balance],
  );
  const download = useAction();
  const [csv, setCsv] = useState<{ href: string; name: string } | null>(null);
  const entries = pages.items;
  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">History</h3>
      <DaysForm
        id="history"
        label="Choose the days of the history"
        onChoose={(chosen) => {
          setCsv(null);
          setDays(chosen);
        }}
      >
        <button
          type="button"
          disabled={download.busy}
          onClick={() =>
            void download.run(async () => {
              const all: Entry[] = [];
              let after: string | undefined;
              for (let i = 0; i < CSV_PAGES; i++) {
                const page = await must(
                  api.player.GET("/v1/me/wallet/entries", { params: { query: { ...days, limit: 500, after } } }),
                );
                all.push(...page.items);
                if (!page.next) break;
                after = page.next;
              }
              const name = `wallet-${days.from ?? "last-30-days"}${days.to ? `-${days.to}` : ""}.csv`;
              // A data: address, which the page's policy lets it read back (a blob: one it may not fetch).
              setCsv({ href: `data:text/csv;charset=utf-8,${encodeURIComponent(csvOf(all))}`, name });
            })
          }
        >
          Prepare CSV
        </button>
        {csv && (
          <a href={csv.href} download={csv.name} data-testid="history-csv">
            Download {csv.name}
          </a>
        )}
      </DaysForm>
      <p class="hint">
        {days.from || days.to ? "The days chosen" : "The last 30 days"}, newest first. A cash-out is held first, then
        paid: the balance moves when it is paid.
      </p>
      <ProblemBanner problem={pages.problem ?? download.problem} />
      <Scroll label="Wallet history" cards>
        <table data-testid="wallet-history">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col" class="num">
                Amount
              </th>
              <th scope="col" class="num">
                Balance
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={`${e.id}-${e.side}`}>
                <td>{when(e.created_at)}</td>
                <td>{describe(e)}</td>
                <td class="num">{e.kind === "pending" ? `${dollars(e.amount)} held` : dollars(change(e))}</td>
                <td class="num">{dollars(e.balance_after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {entries.length === 0 && pages.loaded && <p class="hint">Nothing in these days.</p>}
      {pages.next && (
        <button type="button" disabled={pages.busy} onClick={pages.older}>
          Show older
        </button>
      )}
    </section>
  );
}
