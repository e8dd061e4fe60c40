// Every game's PAR sheet as an operator would rather see it: Castle Keno's return and hit
// frequency by option and spots as charts, blackjack's house edges and side wagers, Powerball's
// tiers, and the instant games' payout. All computed by the platform (exact where exact), drawn
// by Chart.js with the figures beside each chart.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { dollars, must, publicApi, type Schemas } from "./session";
import { BarChart } from "./chart";
import { TIER_NAMES } from "./powerball";
import { ProblemBanner, Scroll, useLoad } from "./ui";

const percent = (value: number) => `${(value * 100).toFixed(2)}%`;

export function ParCharts(): JSX.Element {
  const keno = useLoad(() => must(publicApi.GET("/v1/keno/math")), []);
  const blackjack = useLoad(() => must(publicApi.GET("/v1/blackjack/math")), []);
  const powerball = useLoad(() => must(publicApi.GET("/v1/powerball/math")), []);
  const instant = useLoad(() => must(publicApi.GET("/v1/instant/games")), []);
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
              {o}
            </option>
          ))}
        </select>
      </label>
      <div class="charts" data-testid="par-keno">
        <BarChart
          title={`Return to player by spots (${option})`}
          labels={rows.map((r) => String(r.spots))}
          axis="Spots picked"
          measure="Return to player"
          series={[{ name: "Return to player", values: rows.map((r) => r.return_to_player_decimal) }]}
          max={1}
          format={percent}
        />
        <BarChart
          title={`Hit frequency by spots (${option})`}
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
      <BarChart
        title="Prize payout by game"
        labels={(instant.value ?? []).map((g) => `Game ${g.number}`)}
        axis="Instant game"
        measure="Prizes paid of sales"
        series={[{ name: "Payout", values: (instant.value ?? []).map((g) => g.payout_percent / 100) }]}
        max={1}
        format={percent}
      />
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
