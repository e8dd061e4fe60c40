// An instant game's end of sales and the expiry of its unclaimed prizes (issue 50): the operator
// records the announced end (past or to come); the game's prizes are paid until the last day of
// the claim period after it, then what its prize liability holds moves to the unclaimed account.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, when } from "../shared/session";
import { Field, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";

export function SalesEnds(props: { games: { game: number; name: string }[] }): JSX.Element {
  const ends = useLoad(() => must(api.staff.GET("/v1/instant/sales-ends")), []);
  const [draft, setDraft] = useState({ game: "", ends_on: "" });
  const record = useAction();
  return (
    <section class="box" aria-labelledby="sales-ends-title" data-testid="sales-ends">
      <h3 id="sales-ends-title">Ends of sales and unclaimed prizes</h3>
      <form
        aria-label="Record a game's end of sales"
        onSubmit={(e) => {
          e.preventDefault();
          void record.run(async () => {
            await must(
              api.staff.PUT("/v1/instant/games/{number}/sales-end", {
                params: { path: { number: Number(draft.game) } },
                body: { ends_on: draft.ends_on },
              }),
            );
            ends.reload();
          });
        }}
      >
        <div class="row">
          <label class="field" for="sales-end-game">
            <span>Game</span>
            <select id="sales-end-game" value={draft.game} onChange={(e) => setDraft({ ...draft, game: e.currentTarget.value })}>
              <option value="">choose a game</option>
              {props.games.map((g) => (
                <option key={g.game} value={String(g.game)}>
                  {g.game} {g.name}
                </option>
              ))}
            </select>
          </label>
          <Field id="sales-end-date" type="date" label="Sales end on" value={draft.ends_on} onInput={(v) => setDraft({ ...draft, ends_on: v })} />
          <button type="submit" disabled={record.busy || draft.game === "" || draft.ends_on === ""}>
            Record the end of sales
          </button>
        </div>
      </form>
      <ProblemBanner staff problem={record.problem ?? ends.problem} />
      {(ends.value ?? []).length > 0 && (
        <Scroll label="Ends of sales">
          <table data-testid="sales-ends-table">
            <thead>
              <tr>
                <th scope="col">Game</th>
                <th scope="col">Sales end</th>
                <th scope="col">Last claim day</th>
                <th scope="col">Unclaimed prizes</th>
              </tr>
            </thead>
            <tbody>
              {(ends.value ?? []).map((e) => (
                <tr key={e.game} data-game={e.game}>
                  <th scope="row">{e.game}</th>
                  <td>{e.ends_on}</td>
                  <td>{e.last_claim_day}</td>
                  <td>
                    {e.expired_at ? `${dollars(e.expired_cents ?? 0)} expired ${when(e.expired_at)}` : "claimable until the last day"}
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
