// The console's player lookup: a player found by email, with what an operator or an auditor
// needs before answering them or a regulator: standing (exclusions, breaks, closure), date of
// birth and age, last login, every limit with what it has used, and the activity statement.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { Field, gameName, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";
import { ProposeAdjustment } from "./adjustments";

type Player = Schemas["Player"];

function age(born: string): number {
  const [y, m, d] = born.split("-").map(Number) as [number, number, number];
  const now = new Date();
  const before = now.getMonth() + 1 < m || (now.getMonth() + 1 === m && now.getDate() < d);
  return now.getFullYear() - y - (before ? 1 : 0);
}

export function PlayerLookup(): JSX.Element {
  const [email, setEmail] = useState("");
  const [player, setPlayer] = useState<Player | null>(null);
  const [matches, setMatches] = useState<Schemas["PlayerMatches"] | null>(null);
  const find = useAction();
  const open = (id: string) =>
    void find.run(async () => {
      setPlayer(await must(api.staff.GET("/v1/players/{id}", { params: { path: { id } } })));
    });
  return (
    <div>
      <h2>Players</h2>
      <form
        class="row"
        aria-label="Find a player"
        onSubmit={(e) => {
          e.preventDefault();
          setPlayer(null);
          setMatches(null);
          void find.run(async () => {
            // Any part of the email: one player found is opened at once.
            const found = await must(api.staff.GET("/v1/players/matches", { params: { query: { part: email.trim() } } }));
            const only = found.items.length === 1 && !found.more ? found.items[0] : undefined;
            if (only) setPlayer(await must(api.staff.GET("/v1/players/{id}", { params: { path: { id: only.id } } })));
            else setMatches(found);
          });
        }}
      >
        <Field id="lookup-email" label="Player's email, or part of it" value={email} onInput={setEmail} />
        <button type="submit" disabled={find.busy || email.trim().length < 2}>
          Find the player
        </button>
      </form>
      <ProblemBanner staff problem={find.problem} />
      {matches && (
        <section class="box" aria-label="Players found" data-testid="player-matches">
          {matches.items.length === 0 ? (
            <p>No player's email holds “{email.trim()}”.</p>
          ) : (
            <ul>
              {matches.items.map((m) => (
                <li key={m.id}>
                  <button type="button" class="link" data-player={m.id} onClick={() => open(m.id)}>
                    {m.email}
                  </button>{" "}
                  registered {when(m.created_at)}
                </li>
              ))}
            </ul>
          )}
          {matches.more && <p class="hint">More players match: type more of the email.</p>}
        </section>
      )}
      {player && <PlayerFile key={player.id} player={player} />}
    </div>
  );
}

function PlayerFile(props: { player: Player }): JSX.Element {
  const p = props.player;
  const limits = useLoad(() => must(api.staff.GET("/v1/players/{id}/limits", { params: { path: { id: p.id } } })), [p.id]);
  const statement = useLoad(
    () => must(api.staff.GET("/v1/players/{id}/statement", { params: { path: { id: p.id }, query: {} } })),
    [p.id],
  );
  const l = limits.value;
  const s = statement.value;
  return (
    <section class="box" aria-labelledby="player-file-title" data-testid="player-file">
      <h3 id="player-file-title">{p.email}</h3>
      <dl class="facts">
        <dt>Standing</dt>
        <dd data-testid="player-standing">{p.standing.replace(/_/g, " ")}</dd>
        <dt>Born</dt>
        <dd>
          {p.date_of_birth} (age {age(p.date_of_birth)})
        </dd>
        <dt>Registered</dt>
        <dd>{when(p.created_at)}</dd>
        <dt>Last login</dt>
        <dd>{p.last_login_at ? when(p.last_login_at) : "never"}</dd>
        {p.excluded_permanently && (
          <>
            <dt>Self-excluded</dt>
            <dd>for good</dd>
          </>
        )}
        {p.self_excluded_until && (
          <>
            <dt>Self-excluded until</dt>
            <dd>{when(p.self_excluded_until)}</dd>
          </>
        )}
        {p.on_break_until && (
          <>
            <dt>On a break until</dt>
            <dd>{when(p.on_break_until)}</dd>
          </>
        )}
        {p.closed_at && (
          <>
            <dt>Account closed</dt>
            <dd>{when(p.closed_at)}</dd>
          </>
        )}
        {p.play_resumes_at && (
          <>
            <dt>Play resumes</dt>
            <dd>{when(p.play_resumes_at)}</dd>
          </>
        )}
      </dl>
      <h4>Limits</h4>
      <ProblemBanner staff problem={limits.problem} />
      {l && l.deposit.length + l.money.length + l.time.length === 0 && <p class="hint">No limit set.</p>}
      <ul data-testid="player-limits">
        {l?.deposit.map((d) => (
          <li key={`deposit-${d.period}`}>
            Deposits, {d.period}: {d.amount != null ? dollars(d.amount) : "none"}
            {d.pending_amount != null ? ` (${dollars(d.pending_amount)} from ${when(d.pending_from)})` : ""}
          </li>
        ))}
        {l?.money.map((m) => (
          <li key={`money-${m.kind}-${m.period ?? ""}`}>
            {m.kind.replace(/_/g, " ")}
            {m.period ? `, ${m.period}` : ""}: {m.cents != null ? dollars(m.cents) : "none"} set by {m.source}, used{" "}
            {dollars(m.used)}
            {m.left != null ? `, ${dollars(m.left)} left` : ""}
          </li>
        ))}
        {l?.time.map((t) => (
          <li key={`time-${t.period}`}>
            Time, {t.period}: {t.minutes ?? "none"} min, played {t.played_minutes} min
          </li>
        ))}
      </ul>
      <h4>The last 30 days</h4>
      <ProblemBanner staff problem={statement.problem} />
      {s && (
        <Scroll label="The player's activity" cards>
          <table data-testid="player-statement">
            <thead>
              <tr>
                <th scope="col">Period or game</th>
                <th scope="col" class="num">
                  Deposited
                </th>
                <th scope="col" class="num">
                  Withdrawn
                </th>
                <th scope="col" class="num">
                  Staked
                </th>
                <th scope="col" class="num">
                  Won
                </th>
                <th scope="col" class="num">
                  Net
                </th>
              </tr>
            </thead>
            <tbody>
              {(
                [
                  ["Today", s.today],
                  ["Last 7 days", s.last_7_days],
                  ["Last 30 days", s.last_30_days],
                  ...s.games.map((g) => [gameName(g.game), g.totals] as const),
                ] as const
              ).map(([name, t]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td class="num">{dollars(t.deposited)}</td>
                  <td class="num">{dollars(t.withdrawn)}</td>
                  <td class="num">{dollars(t.staked)}</td>
                  <td class="num">{dollars(t.won)}</td>
                  <td class="num">{dollars(t.net)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <ProposeAdjustment player={p.id} />
    </section>
  );
}
