// Every game's PAR sheet as an operator would rather see it: Castle Keno's return and hit
// frequency by option and spots as charts, blackjack's house edges and side wagers, I Luv Suits'
// base game and side wagers, craps' every wager, Powerball's tiers, and the instant games'
// payout (a demonstration's smaller print runs labelled as such, no bar cut off). All computed by
// the platform (exact where exact), drawn by Chart.js with the figures beside each chart.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { dollars, must, publicApi, type Schemas } from "../shared/session";
import { BarChart } from "../shared/chart";
import { betName } from "../player/craps";
import { OPTION_NAMES } from "../player/keno";
import { TIER_NAMES } from "../shared/powerball";
import { ProblemBanner, Scroll, useLoad } from "../shared/ui";

const percent = (value: number) => `${(value * 100).toFixed(2)}%`;

export function ParCharts(): JSX.Element {
  const keno = useLoad(() => must(publicApi.GET("/v1/keno/math")), []);
  const blackjack = useLoad(() => must(publicApi.GET("/v1/blackjack/math")), []);
  const powerball = useLoad(() => must(publicApi.GET("/v1/powerball/math")), []);
  const instant = useLoad(() => must(publicApi.GET("/v1/instant/games")), []);
  const games = instant.value ?? [];
  const payouts = games.map((g) => g.payout_percent / 100);
  const scales = Array.from(new Set(games.flatMap((g) => (g.demonstration_scale ? [g.demonstration_scale] : []))));
  const [option, setOption] = useState<Schemas["BetOption"]>("bet");
  const options = Array.from(new Set((keno.value ?? []).map((r) => r.option)));
  const rows = (keno.value ?? []).filter((r) => r.option === option);
  return (
    <div>
      <h2>Castle Keno</h2>
      <ProblemBanner problem={keno.problem} />
      <label class="field" for="par-option">
        <span>Option</span>
        <select id="par-option" value={option} onChange={(e) => setOption(e.currentTarget.value as Schemas["BetOption"])}>
          {options.map((o) => (
            <option key={o} value={o}>
              {OPTION_NAMES[o] ?? o}
            </option>
          ))}
        </select>
      </label>
      <div class="charts" data-testid="par-keno">
        <BarChart
          title={`Return to player by spots (${OPTION_NAMES[option] ?? option})`}
          labels={rows.map((r) => String(r.spots))}
          axis="Spots picked"
          measure="Return to player"
          series={[{ name: "Return to player", values: rows.map((r) => r.return_to_player_decimal) }]}
          max={1}
          format={percent}
        />
        <BarChart
          title={`Hit frequency by spots (${OPTION_NAMES[option] ?? option})`}
          labels={rows.map((r) => String(r.spots))}
          axis="Spots picked"
          measure="Hit frequency"
          series={[{ name: "Hit frequency", values: rows.map((r) => r.hit_frequency_decimal) }]}
          max={1}
          format={percent}
        />
      </div>
      <h2>Blackjack</h2>
      <ProblemBanner problem={blackjack.problem} />
      <Scroll label="Blackjack main game">
        <table>
          <caption>Main game under basic strategy (simulated)</caption>
          <thead>
            <tr>
              <th scope="col">Decks</th>
              <th scope="col" class="num">
                House edge
              </th>
              <th scope="col" class="num">
                ±95%
              </th>
              <th scope="col" class="num">
                Rounds
              </th>
            </tr>
          </thead>
          <tbody>
            {(blackjack.value?.main_game ?? []).map((m) => (
              <tr key={m.decks}>
                <td>{m.decks}</td>
                <td class="num">{m.house_edge_percent.toFixed(3)}%</td>
                <td class="num">{m.confidence_95_percent.toFixed(3)}%</td>
                <td class="num">{m.rounds.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <SideWagers sides={blackjack.value?.side_wagers ?? []} />
      <ILuvSuitsPar />
      <CrapsPar />
      <h2>Powerball</h2>
      <ProblemBanner problem={powerball.problem} />
      {powerball.value && (
        <Scroll label="Powerball prize tiers">
          <table>
            <caption>Prize tiers (any prize 1 in {powerball.value.any_prize_one_in.toFixed(2)})</caption>
            <thead>
              <tr>
                <th scope="col">Tier</th>
                <th scope="col" class="num">
                  Odds 1 in
                </th>
                <th scope="col" class="num">
                  Prize
                </th>
              </tr>
            </thead>
            <tbody>
              {powerball.value.tiers.map((t) => (
                <tr key={t.tier}>
                  <td>{TIER_NAMES[t.tier] ?? t.tier}</td>
                  <td class="num">{Math.round(t.one_in).toLocaleString()}</td>
                  <td class="num">{t.prize_cents == null ? "grand prize" : dollars(t.prize_cents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <h2>Instant games</h2>
      <ProblemBanner problem={instant.problem} />
      {scales.length > 0 && (
        <p class="notice" data-testid="par-instant-scale">
          Demonstration print scale: each prize row divided by {scales.join(", ")} (LOTTO_INSTANT_SCALE), keeping at least
          one winner a pool, so these payouts are not the games' as ordered and may pass 100%.
        </p>
      )}
      <div data-testid="par-instant">
      <BarChart
        title={scales.length > 0 ? `Prize payout by game (demonstration scale 1/${scales.join(", 1/")})` : "Prize payout by game"}
        labels={games.map((g) => `${g.number} ${g.name}`)}
        axis="Instant game"
        measure="Prizes paid of sales"
        series={[{ name: "Payout", values: payouts }]}
        max={Math.max(1, Math.ceil(Math.max(0, ...payouts) * 4) / 4)}
        format={percent}
      />
      </div>
    </div>
  );
}

/** Blackjack's side wagers' exact return by deck count, one series per deck count (the
 * progressive at its seed pot and in the long run beside it). */
function SideWagers(props: { sides: Schemas["SideWagerView"][] }): JSX.Element {
  const name = (s: Schemas["SideWagerView"]) => s.wager.replace(/_/g, " ");
  const labels = Array.from(new Set(props.sides.map(name)));
  const decks = Array.from(new Set(props.sides.map((s) => s.decks))).sort((a, b) => b - a);
  const series = decks.map((d) => ({
    name: `${d} decks`,
    values: labels.map((l) => props.sides.find((s) => s.decks === d && name(s) === l)?.return_to_player_decimal ?? 0),
  }));
  const longRun = props.sides.filter((s) => s.long_run_return_to_player_decimal != null);
  return (
    <>
      <BarChart
        title="Side wagers: exact return to player"
        labels={labels}
        axis="Side wager"
        measure="Return to player"
        series={series}
        max={1}
        format={percent}
      />
      {longRun.map((s) => (
        <p key={`${s.wager}-${s.decks}`} class="hint">
          {name(s)} ({s.decks} decks) in the long run, with its contribution and re-seeding:{" "}
          {percent(s.long_run_return_to_player_decimal ?? 0)} (at the seed pot {percent(s.return_to_player_decimal)}).
        </p>
      ))}
    </>
  );
}

/** I Luv Suits (K.A.R. 111-301-74 to -76): the base game's house edge under each reading of its
 * rules (the one played marked), and each side wager's exact return. */
function ILuvSuitsPar(): JSX.Element {
  const math = useLoad(() => must(publicApi.GET("/v1/i-luv-suits/math")), []);
  const sides = math.value?.side_wagers ?? [];
  return (
    <section data-testid="par-i-luv-suits">
      <h2>I Luv Suits</h2>
      <ProblemBanner problem={math.problem} />
      <Scroll label="I Luv Suits base game">
        <table>
          <caption>Base game, every deal counted, by reading of the rules</caption>
          <thead>
            <tr>
              <th scope="col">Dealer qualifies</th>
              <th scope="col">Play wager at least</th>
              <th scope="col" class="num">
                House edge per ante
              </th>
              <th scope="col" class="num">
                Per unit wagered
              </th>
            </tr>
          </thead>
          <tbody>
            {(math.value?.base_game ?? []).map((b) => (
              <tr key={`${b.qualifier}-${b.play_floor}`} aria-current={b.implemented ? "true" : undefined}>
                <td>
                  {b.qualifier.replace(/_/g, " ")}
                  {b.implemented ? " (played here)" : ""}
                </td>
                <td>{b.play_floor.replace(/_/g, " ")}</td>
                <td class="num">{percent(b.house_edge_per_ante.decimal)}</td>
                <td class="num">{percent(b.house_edge_per_wager.decimal)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <BarChart
        title="I Luv Suits side wagers: exact return to player"
        labels={sides.map((s) => s.wager.replace(/_/g, " "))}
        axis="Side wager"
        measure="Return to player"
        series={[{ name: "Return to player", values: sides.map((s) => s.return_to_player.decimal) }]}
        max={Math.max(1, ...sides.map((s) => s.return_to_player.decimal))}
        format={percent}
      />
      {math.value && (
        <p class="hint">
          Progressive ({dollars(math.value.progressive.wager_cents)} a hand): return {percent(math.value.progressive.at_seed.decimal)}{" "}
          at the seed meter, {percent(math.value.progressive.long_run_reseeded.decimal)} in the long run with re-seeding.
        </p>
      )}
    </section>
  );
}

/** Craps (K.A.R. 111-501-44, -45): every wager's pay, house edge per unit wagered and per roll. */
function CrapsPar(): JSX.Element {
  const math = useLoad(() => must(publicApi.GET("/v1/craps/math")), []);
  return (
    <section data-testid="par-craps">
      <h2>Craps</h2>
      <ProblemBanner problem={math.problem} />
      {math.value && (
        <p>
          Pass line with full ({math.value.rules.odds_multiple}x) odds: house edge{" "}
          {percent(math.value.pass_with_full_odds.decimal)} of all wagered.
        </p>
      )}
      <Scroll label="Craps wagers">
        <table>
          <caption>Every wager, exactly</caption>
          <thead>
            <tr>
              <th scope="col">Wager</th>
              <th scope="col">Pays</th>
              <th scope="col" class="num">
                House edge
              </th>
              <th scope="col" class="num">
                Per roll
              </th>
            </tr>
          </thead>
          <tbody>
            {(math.value?.wagers ?? []).map((w) => (
              <tr key={w.wager}>
                <td>{w.wager.replace(/_/g, " ")}</td>
                <td>{w.pays}</td>
                <td class="num">{percent(w.house_edge.decimal)}</td>
                <td class="num">{percent(w.house_edge_per_roll.decimal)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <details>
        <summary>What each area of the table pays, as players read it</summary>
        <ul>
          {(math.value?.areas ?? []).map((a) => (
            <li key={JSON.stringify(a)}>
              {betName(a)}: {a.pays}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
