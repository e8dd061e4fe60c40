// The console's player-protection jobs (issue 35, ADR 0014): the state's and the operator's
// exclusion lists (a person entered, a list imported as CSV, an entry taken off, each entry's
// matches) and the dormant accounts with the balances that stay their players'.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { ConfirmButton, Field, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";

const counted = (n: number, thing: string) => `${n.toLocaleString()} ${thing}${n === 1 ? "" : "s"}`;
const players = (n: number) => counted(n, "player");

/** What adding to the lists did, in words. */
function imported(r: Schemas["ExclusionImport"]): string {
  return `${r.added} added, ${r.replaced} replaced; ${players(r.players_excluded)} excluded now.`;
}

export function PlayerProtection(): JSX.Element {
  const entries = useLoad(() => must(api.staff.GET("/v1/exclusion-list")), []);
  // Entries name who added them by staff id; the console shows the username.
  const staff = useLoad(() => must(api.staff.GET("/v1/staff")), []);
  const username = (id: string) => staff.value?.items.find((m) => m.id === id)?.username ?? id;
  const [outcome, setOutcome] = useState<string | null>(null);
  const done = (text: string) => {
    setOutcome(text);
    entries.reload();
  };
  return (
    <div>
      <h2>Exclusion lists</h2>
      <p class="hint">
        A player whose email matches an entry (and whose date of birth does, where the entry gives one) is excluded
        at once: sessions ended, tickets for future draws refunded, play and deposits refused, withdrawals still
        taken. A registration that matches is refused. Every match is logged.
      </p>
      <div class="pair">
        <AddEntry onDone={done} />
        <ImportList onDone={done} />
      </div>
      {outcome && (
        <p role="status" class="notice" data-testid="exclusion-outcome">
          {outcome}
        </p>
      )}
      <ProblemBanner staff problem={entries.problem ?? staff.problem} />
      <Scroll label="Exclusion list" cards>
        <table data-testid="exclusion-entries">
          <caption>On the lists now, newest first</caption>
          <thead>
            <tr>
              <th scope="col">List</th>
              <th scope="col">Reference</th>
              <th scope="col">Email</th>
              <th scope="col">Born</th>
              <th scope="col">Last day</th>
              <th scope="col">Added</th>
              <th scope="col" class="num">
                Matches
              </th>
              <th scope="col">Take off</th>
            </tr>
          </thead>
          <tbody>
            {(entries.value ?? []).map((e) => (
              <tr key={e.id}>
                <td>{e.source === "state" ? "State" : "Operator"}</td>
                <th scope="row">{e.reference}</th>
                <td>{e.email}</td>
                <td class="date">{e.date_of_birth ?? "—"}</td>
                <td class="date">{e.ends_on ?? "until taken off"}</td>
                <td>
                  {when(e.added_at)} by {username(e.added_by)}
                </td>
                <td class="num">{e.matches}</td>
                <td>
                  <ConfirmButton
                    staff
                    ask={`Take ${e.reference} off`}
                    confirm={`Yes, take ${e.reference} off the list`}
                    group={`Taking ${e.reference} off the list`}
                    act={async () => {
                      const removed = await must(
                        api.staff.DELETE("/v1/exclusion-list/{id}", { params: { path: { id: e.id } } }),
                      );
                      done(`${e.reference} taken off the list; ${players(removed.players_released)} may play again.`);
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <Dormant />
    </div>
  );
}

/** One person entered by hand. */
function AddEntry(props: { onDone: (text: string) => void }): JSX.Element {
  const [source, setSource] = useState<Schemas["ExclusionSource"]>("operator");
  const [reference, setReference] = useState("");
  const [email, setEmail] = useState("");
  const [born, setBorn] = useState("");
  const [endsOn, setEndsOn] = useState("");
  const add = useAction();
  return (
    <form
      class="box"
      aria-labelledby="exclusion-add-title"
      onSubmit={(e) => {
        e.preventDefault();
        void add.run(async () => {
          const body = {
            source,
            reference,
            email,
            date_of_birth: born === "" ? null : born,
            ends_on: endsOn === "" ? null : endsOn,
          };
          props.onDone(imported(await must(api.staff.POST("/v1/exclusion-list", { body }))));
          setReference("");
          setEmail("");
          setBorn("");
          setEndsOn("");
        });
      }}
    >
      <h3 id="exclusion-add-title">Put a person on a list</h3>
      <label class="field" for="exclusion-source">
        <span>List</span>
        <select
          id="exclusion-source"
          value={source}
          onChange={(e) => setSource(e.currentTarget.value as Schemas["ExclusionSource"])}
        >
          <option value="operator">Operator's own</option>
          <option value="state">State (regulator's)</option>
        </select>
      </label>
      <Field id="exclusion-reference" label="The list's reference" value={reference} onInput={setReference} />
      <Field id="exclusion-email" label="Email" type="email" value={email} onInput={setEmail} />
      <Field id="exclusion-born" label="Date of birth (optional)" type="date" value={born} onInput={setBorn} />
      <Field id="exclusion-ends" label="Last day (empty: until taken off)" type="date" value={endsOn} onInput={setEndsOn} />
      <button type="submit" disabled={add.busy}>
        Put on the list
      </button>
      <ProblemBanner staff problem={add.problem} />
    </form>
  );
}

/** A list imported from a file: taken whole, or refused at its first bad line. */
function ImportList(props: { onDone: (text: string) => void }): JSX.Element {
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const send = useAction();
  return (
    <form
      class="box"
      aria-labelledby="exclusion-import-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (!file) return;
        void send.run(async () => {
          const result = await must(
            api.staff.POST("/v1/exclusion-list/import", {
              // The file as it is: the route also takes the rows as JSON, which this is not.
              body: file.text as unknown as { entries: [] },
              bodySerializer: () => file.text,
              headers: { "content-type": "text/csv" },
            }),
          );
          props.onDone(`${file.name}: ${imported(result)}`);
        });
      }}
    >
      <h3 id="exclusion-import-title">Import a list</h3>
      <p class="hint">
        A CSV file: the header <code>source,reference,email,date_of_birth,ends_on</code>, then one person a line
        (<code>state</code> or <code>operator</code>; dates as YYYY-MM-DD or empty). The whole file is taken, or none of
        it.
      </p>
      <label class="field" for="exclusion-file">
        <span>File</span>
        <input
          id="exclusion-file"
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            const chosen = e.currentTarget.files?.[0];
            send.clear();
            if (!chosen) return setFile(null);
            void chosen.text().then((text) => setFile({ name: chosen.name, text }));
          }}
        />
      </label>
      <button type="submit" disabled={send.busy || !file}>
        Import {file ? `${file.name} (${file.text.split("\n").filter((l) => l.trim() !== "").length - 1} lines)` : "the file"}
      </button>
      <ProblemBanner staff problem={send.problem} />
    </form>
  );
}

/** Accounts without a login for the configured days, with their balances, a page at a time. */
function Dormant(): JSX.Element {
  const [after, setAfter] = useState<string | undefined>(undefined);
  const dormant = useLoad(() => must(api.staff.GET("/v1/dormant-accounts", { params: { query: { after } } })), [after]);
  const d = dormant.value;
  return (
    <div>
      <h2>Dormant accounts</h2>
      <p class="hint">
        No login for {d ? d.dormant_after_days.toLocaleString() : "…"} days. The balance stays the player's and is
        shown on their return; a login takes the account off this list.
      </p>
      <ProblemBanner staff problem={dormant.problem} />
      <Scroll label="Dormant accounts" cards>
        <table data-testid="dormant-accounts">
          <thead>
            <tr>
              <th scope="col">Player</th>
              <th scope="col">Last login</th>
              <th scope="col">Inactive since</th>
              <th scope="col" class="num">
                Balance
              </th>
            </tr>
          </thead>
          <tbody>
            {(d?.accounts ?? []).map((a) => (
              <tr key={a.player_id}>
                <th scope="row" title={a.player_id}>
                  {a.email}
                </th>
                <td>{a.last_login_at ? when(a.last_login_at) : "never"}</td>
                <td>{when(a.inactive_since)}</td>
                <td class="num">{dollars(a.balance_cents)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={3}>
                {d ? `${counted(d.accounts.length, "account")} on this page` : ""}
              </th>
              <td class="num">{d ? dollars(d.total_balance_cents) : ""}</td>
            </tr>
          </tfoot>
        </table>
      </Scroll>
      <div class="row">
        {after !== undefined && (
          <button type="button" onClick={() => setAfter(undefined)}>
            First page
          </button>
        )}
        {d?.next && (
          <button type="button" onClick={() => setAfter(d.next ?? undefined)}>
            Next page
          </button>
        )}
      </div>
    </div>
  );
}
