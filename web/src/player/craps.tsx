// The craps table drawn as a layout: choose a chip, then press the area to bet on (the pass line,
// don't pass, come, don't come, the field, the place, buy and lay boxes of each number, big 6 and
// 8, the hardways and the propositions in the centre, the bonus wagers); odds go behind a line
// bet once there is a point, and behind a come or put bet on its number. The puck sits on the
// point, the dice are shown, each area says after a roll whether its bet won, lost, pushed or
// moved, each area says what it pays (the API's words, from the pay tables the rolls are settled
// on), a bet is offered "call off" or "take down" only where the rules let it change anything, and
// what the roll won or cost is said in words. Every bet of 111-501-44(c) can be made here.
import type { ComponentChildren, JSX } from "preact";
import { useState } from "preact/hooks";
import { api, centsOf, dollars, must, newKey, publicApi, type Schemas } from "../shared/session";
import { Field, ProblemBanner, useAction, useLoad } from "../shared/ui";

type Bet = Schemas["Bet"];
type BetView = Schemas["BetView"];
type Play = Schemas["CrapsPlay"];
type Session = Schemas["CrapsSession"];
type Outcome = Schemas["Outcome"];

const BOX_NUMBERS = [4, 5, 6, 8, 9, 10] as const;
const CHIPS = [100, 500, 1_000, 2_500, 10_000];

/** Each bet's name as the layout prints it. */
const NAMES: Record<string, string> = {
  pass: "Pass line",
  dont_pass: "Don't pass",
  come: "Come",
  dont_come: "Don't come",
  come_point: "Come bet on",
  dont_come_point: "Don't come bet on",
  pass_odds: "Odds behind the pass line",
  dont_pass_odds: "Odds laid behind don't pass",
  come_odds: "Come odds on",
  dont_come_odds: "Don't come odds on",
  put: "Put bet on",
  put_odds: "Put odds on",
  place: "Place",
  buy: "Buy",
  lay: "Lay",
  hardway: "Hard",
  big6: "Big 6",
  big8: "Big 8",
  field: "Field",
  any_seven: "Any seven",
  any_craps: "Any craps",
  two: "Two",
  three: "Three",
  twelve: "Twelve",
  eleven: "Eleven",
  horn: "Horn",
  horn_high: "Horn high",
  world: "World",
  three_way_craps: "3-way craps",
  hop: "Hop",
  split: "Split",
  c_and_e: "C and E",
  high_low: "High-low",
  ace_deuce_any_craps: "Ace-deuce / any craps",
  all_small: "All small",
  all_tall: "All tall",
  make_em_all: "Make 'em all",
  hot_shooter: "Hot shooter",
};

function fields(bet: Bet): Record<string, unknown> {
  const { bet: kind, number, dice, halves } = bet as Bet & { halves?: unknown };
  return Object.fromEntries(Object.entries({ bet: kind, number, dice, halves }).filter(([, v]) => v !== undefined));
}

export function betName(bet: Bet): string {
  const label = NAMES[bet.bet] ?? bet.bet.replace(/_/g, " ");
  return bet.number !== undefined ? `${label} ${bet.number}` : label;
}

/** The area of the layout where a bet's chips sit. */
function spotOf(bet: Bet): string {
  const n = bet.number;
  switch (bet.bet) {
    case "pass_odds":
      return "pass";
    case "dont_pass_odds":
      return "dont_pass";
    case "come_point":
    case "come_odds":
    case "put":
    case "put_odds":
      return `come-${n}`;
    case "dont_come_point":
    case "dont_come_odds":
      return `dont_come-${n}`;
    default:
      return n !== undefined ? `${bet.bet}-${n}` : bet.bet;
  }
}

/** What a roll did to one bet, in words. */
export function outcomeWords(o: Outcome): string {
  const name = betName(o);
  const staked = dollars(o.amount_cents);
  switch (o.result) {
    case "won":
      return `${name} ${staked} won ${dollars(o.returned_cents - o.amount_cents)}: ${dollars(o.returned_cents)} back to you`;
    case "lost":
      return `${name} ${staked} lost: the house keeps the ${staked} staked`;
    case "push":
      return `${name} ${staked}: a push, the ${staked} back to you`;
    default:
      return `${name} ${staked} moved to its number`;
  }
}

/** What an area pays, short enough for the layout: a wager split in units says so, and the
 * list below the table has each unit's odds. */
function shortPays(pays: string): string {
  const odds = pays.split(" (")[0] ?? pays;
  return odds.startsWith("split in") ? "pays unit by unit (see what each area pays)" : `pays ${odds}`;
}

/** The dice as a player sees them. */
function Dice(props: { die1: number; die2: number }): JSX.Element {
  const face = (n: number) => String.fromCodePoint(0x267f + n);
  return (
    <span class="dice" aria-hidden="true">
      <span class="die">{face(props.die1)}</span>
      <span class="die">{face(props.die2)}</span>
    </span>
  );
}

/** What every area of the layout needs: the bets on it, the last roll's outcomes, the chip. */
interface Layout {
  /** What each area pays, by spot. */
  pays: Map<string, string>;
  bets: BetView[];
  outcomes: Outcome[];
  chip: number;
  busy: boolean;
  bet: (b: Bet) => void;
}

/** An area of the layout: pressing it bets the chip on `target`; its chips and the last roll's
 * verdict on its bet are shown on it. */
function Spot(p: {
  layout: Layout;
  spot: string;
  target?: Bet;
  label: string;
  class?: string;
  children?: ComponentChildren;
}): JSX.Element {
  const { layout } = p;
  const here = layout.bets.filter((b) => spotOf(b) === p.spot);
  const result = layout.outcomes.find((o) => spotOf(o) === p.spot)?.result;
  const said = here.map((b) => `${dollars(b.amount_cents)}${b.works ? "" : " off"}`).join(", ");
  const pays = layout.pays.get(p.spot);
  const inner = (
    <>
      <span class="spot-name">{p.children ?? p.label}</span>
      {here.map((b) => (
        <span key={JSON.stringify(fields(b))} class={`chip${b.works ? "" : " off"}`}>
          {dollars(b.amount_cents)}
          {b.bet.endsWith("_odds") ? " odds" : ""}
          {b.works ? "" : " OFF"}
        </span>
      ))}
      {pays && <span class="area-pays">{shortPays(pays)}</span>}
      {result && <span class={`verdict ${result}`}>{result}</span>}
      {p.target && <span class="visually-hidden">: bet {dollars(layout.chip)} here</span>}
    </>
  );
  const className = `spot ${p.class ?? ""} ${result ?? ""}`;
  const target = p.target;
  return target ? (
    <button
      type="button"
      class={className}
      data-spot={p.spot}
      disabled={layout.busy}
      onClick={() => layout.bet(target)}
    >
      {inner}
    </button>
  ) : (
    <div class={className} data-spot={p.spot} role="group" aria-label={`${p.label}${said ? `: ${said}` : ""}`}>
      {inner}
    </div>
  );
}

export function CrapsTable(props: { onMoney: () => void; resume?: Session | undefined }): JSX.Element {
  // A session left with bets on the layout is taken up where it stands.
  const [session, setSession] = useState<Session | null>(props.resume ?? null);
  const [last, setLast] = useState<Play["result"] | null>(null);
  const [chosenChip, setChip] = useState(500);
  // Another amount than the chips' (a place 6 in $6 units, say), while one is typed.
  const [other, setOther] = useState("");
  const chip = centsOf(other) ?? chosenChip;
  const act = useAction();
  const math = useLoad(() => must(publicApi.GET("/v1/craps/math")), []);
  const pays = new Map((math.value?.areas ?? []).map((a) => [spotOf(a), a.pays] as const));
  const sit = () =>
    act.run(async () => {
      setSession(await must(api.player.POST("/v1/craps/sessions", { body: {} })));
    });
  const send = (path: "rolls" | "bets", changes: Schemas["Change"][]) =>
    act.run(async () => {
      if (!session) return;
      const request = { params: { path: { id: session.id }, header: { "Idempotency-Key": newKey() } }, body: { changes } };
      const play =
        path === "rolls"
          ? await must(api.player.POST("/v1/craps/sessions/{id}/rolls", request))
          : await must(api.player.POST("/v1/craps/sessions/{id}/bets", request));
      setSession(play.session);
      setLast(play.result);
      props.onMoney();
    });
  const bet = (b: Bet): void => void send("bets", [{ change: "place", amount_cents: chip, ...fields(b) } as Schemas["Change"]]);
  if (!session) {
    return (
      <div>
        <h2>Craps</h2>
        <CrapsHowToPlay />
        <button type="button" onClick={() => void sit()} disabled={act.busy}>
          Sit down at a table
        </button>
        <ProblemBanner problem={act.problem} />
      </div>
    );
  }
  const outcomes = last?.roll?.outcomes ?? [];
  const has = (kind: string, n?: number) => session.bets.some((b) => b.bet === kind && (n === undefined || b.number === n));
  const layout: Layout = { pays, bets: session.bets, outcomes, chip, busy: act.busy, bet };
  const net = last ? last.money.winnings_cents - last.money.lost_cents : 0;
  const point = session.point ?? null;
  return (
    <div>
      <h2>Craps</h2>
      <p data-testid="craps-puck" class="puck-line">
        <span class={`puck ${point ? "on" : "off"}`} aria-hidden="true">
          {point ? "ON" : "OFF"}
        </span>{" "}
        {point ? `Point: ${point} (puck on)` : "Come-out roll (puck off)"} · odds up to {session.rules.odds_multiple}x ·
        bets {dollars(session.rules.min_bet_cents)} to {dollars(session.rules.max_bet_cents)} · on the layout{" "}
        {dollars(session.on_layout_cents)}
      </p>
      <div class="row" role="radiogroup" aria-label="Chip to bet">
        {CHIPS.map((c) => (
          <button
            key={c}
            type="button"
            role="radio"
            aria-checked={chip === c}
            class={`chip-choice${chip === c ? " chosen" : ""}`}
            data-chip={c}
            onClick={() => {
              setChip(c);
              setOther("");
            }}
          >
            {dollars(c)}
          </button>
        ))}
        <Field id="craps-other" label="Or another amount ($)" inputMode="decimal" value={other} onInput={setOther} />
      </div>
      <div class="craps-table" data-testid="craps-table">
        <div class="craps-boxes">
          {BOX_NUMBERS.map((n) => (
            <div key={n} class={`craps-box${point === n ? " point" : ""}`} role="group" aria-label={`The ${n}`}>
              <div class="box-number">
                {n}
                {point === n && (
                  <span class="puck on" aria-label="the puck: the point">
                    ON
                  </span>
                )}
              </div>
              <Spot layout={layout} spot={`place-${n}`} target={{ bet: "place", number: n }} label={`Place ${n}`} />
              <div class="row tight">
                <Spot layout={layout} spot={`buy-${n}`} target={{ bet: "buy", number: n }} label={`Buy ${n}`} class="small" />
                <Spot layout={layout} spot={`lay-${n}`} target={{ bet: "lay", number: n }} label={`Lay ${n}`} class="small" />
              </div>
              <Spot layout={layout} spot={`come-${n}`} label={`Come and put bets on ${n}`} class="small">
                Come / put
              </Spot>
              <Spot layout={layout} spot={`dont_come-${n}`} label={`Don't come bets on ${n}`} class="small">
                Don't come
              </Spot>
              <div class="row tight">
                {point !== null && (
                  <button type="button" class="link" disabled={act.busy} onClick={() => bet({ bet: "put", number: n })}>
                    Put {n}
                  </button>
                )}
                {(has("come_point", n) || has("put", n)) && (
                  <button
                    type="button"
                    class="link"
                    disabled={act.busy}
                    onClick={() => bet({ bet: has("put", n) ? "put_odds" : "come_odds", number: n })}
                  >
                    Odds on come {n}
                  </button>
                )}
                {has("dont_come_point", n) && (
                  <button type="button" class="link" disabled={act.busy} onClick={() => bet({ bet: "dont_come_odds", number: n })}>
                    Lay odds on don't come {n}
                  </button>
                )}
              </div>
            </div>
          ))}
        </div>
        <div class="craps-middle">
          <Spot layout={layout} spot="come" target={{ bet: "come" }} label="Come" class="wide" />
          <Spot layout={layout} spot="big6" target={{ bet: "big6" }} label="Big 6" />
          <Spot layout={layout} spot="big8" target={{ bet: "big8" }} label="Big 8" />
        </div>
        <Spot layout={layout} spot="field" target={{ bet: "field" }} label="Field" class="wide field-area">
          Field · 2 · 3 · 4 · 9 · 10 · 11 · 12
        </Spot>
        <Spot layout={layout} spot="dont_come" target={{ bet: "dont_come" }} label="Don't come" class="wide">
          Don't come bar 12
        </Spot>
        <Spot layout={layout} spot="dont_pass" target={{ bet: "dont_pass" }} label="Don't pass" class="wide">
          Don't pass bar 12
        </Spot>
        <Spot layout={layout} spot="pass" target={{ bet: "pass" }} label="Pass line" class="wide pass" />
        <div class="row">
          {point !== null && has("pass") && (
            <button type="button" disabled={act.busy} onClick={() => bet({ bet: "pass_odds" })}>
              Odds behind the pass line
            </button>
          )}
          {point !== null && has("dont_pass") && (
            <button type="button" disabled={act.busy} onClick={() => bet({ bet: "dont_pass_odds" })}>
              Lay odds behind don't pass
            </button>
          )}
        </div>
        <div class="craps-center" role="group" aria-label="Propositions">
          <Spot layout={layout} spot="any_seven" target={{ bet: "any_seven" }} label="Any seven" />
          {[4, 6, 8, 10].map((n) => (
            <Spot layout={layout} key={n} spot={`hardway-${n}`} target={{ bet: "hardway", number: n }} label={`Hard ${n}`} />
          ))}
          <Spot layout={layout} spot="two" target={{ bet: "two" }} label="Two" />
          <Spot layout={layout} spot="three" target={{ bet: "three" }} label="Three" />
          <Spot layout={layout} spot="eleven" target={{ bet: "eleven" }} label="Eleven" />
          <Spot layout={layout} spot="twelve" target={{ bet: "twelve" }} label="Twelve" />
          <Spot layout={layout} spot="any_craps" target={{ bet: "any_craps" }} label="Any craps" />
          <Spot layout={layout} spot="horn" target={{ bet: "horn" }} label="Horn" />
          {[2, 3, 11, 12].map((n) => (
            <Spot layout={layout} key={n} spot={`horn_high-${n}`} target={{ bet: "horn_high", number: n }} label={`Horn high ${n}`} />
          ))}
          <Spot layout={layout} spot="world" target={{ bet: "world" }} label="World" />
          <Spot layout={layout} spot="three_way_craps" target={{ bet: "three_way_craps" }} label="3-way craps" />
          <Spot layout={layout} spot="c_and_e" target={{ bet: "c_and_e" }} label="C and E" />
          <Spot layout={layout} spot="high_low" target={{ bet: "high_low" }} label="High-low" />
          <Spot layout={layout} spot="ace_deuce_any_craps" target={{ bet: "ace_deuce_any_craps" }} label="Ace-deuce / any craps" />
        </div>
        <div class="craps-center" role="group" aria-label="Bonus wagers">
          <Spot layout={layout} spot="all_small" target={{ bet: "all_small" }} label="All small" />
          <Spot layout={layout} spot="all_tall" target={{ bet: "all_tall" }} label="All tall" />
          <Spot layout={layout} spot="make_em_all" target={{ bet: "make_em_all" }} label="Make 'em all" />
          <Spot layout={layout} spot="hot_shooter" target={{ bet: "hot_shooter" }} label="Hot shooter" />
        </div>
      </div>
      <div class="row">
        <button type="button" class="roll" data-action="roll" disabled={act.busy} onClick={() => void send("rolls", [])}>
          Roll the dice
        </button>
      </div>
      <ProblemBanner problem={act.problem} />
      {last?.roll && (
        <div role="status" data-testid="craps-roll" class="box">
          <p data-testid="craps-dice">
            <Dice die1={last.roll.roll.die1} die2={last.roll.roll.die2} /> Rolled {last.roll.roll.die1} and{" "}
            {last.roll.roll.die2}: <strong>{last.roll.total}</strong>
            {last.roll.power_odds ? " · power odds lit" : ""}
            {last.roll.seven_out ? " · seven out" : ""}
            {last.roll.point_after && last.roll.point_after !== last.roll.point_before
              ? ` · the point is ${last.roll.point_after}`
              : ""}
            {last.roll.point_before && !last.roll.point_after ? " · the puck is off" : ""}
          </p>
          <ul data-testid="craps-outcomes">
            {outcomes.map((o, i) => (
              <li key={i}>{outcomeWords(o)}</li>
            ))}
            {outcomes.length === 0 && <li>No bet was decided; every bet stays.</li>}
          </ul>
          <p data-testid="craps-net">
            <strong>
              {net < 0 ? `This roll cost you ${dollars(-net)}` : net > 0 ? `This roll won you ${dollars(net)}` : "This roll won and lost nothing"}
            </strong>
            {last.money.lost_cents > 0 ? ` (${dollars(last.money.lost_cents)} of bets lost` : " ("}
            {last.money.lost_cents > 0 && last.money.winnings_cents > 0 ? ", " : ""}
            {last.money.winnings_cents > 0 ? `${dollars(last.money.winnings_cents)} won` : ""}
            {last.money.lost_cents === 0 && last.money.winnings_cents === 0 ? "no bet decided" : ""}).
          </p>
          <p>
            Bets are paid for from your wallet when you make them, so the wallet moves only by what a roll gives back:{" "}
            {dollars(last.money.returned_cents + last.money.winnings_cents)} this roll. Wallet{" "}
            {dollars(last.balance_before_cents)} → <strong data-testid="craps-balance">{dollars(last.balance_after_cents)}</strong>
          </p>
        </div>
      )}
      <details class="box" data-testid="craps-pays">
        <summary>What each area pays</summary>
        <ul>
          {(math.value?.areas ?? []).map((a) => (
            <li key={JSON.stringify(a)}>
              {betName(a)}: {a.pays}
            </li>
          ))}
        </ul>
      </details>
      <h3>Your bets</h3>
      {session.bets.length === 0 && <p class="hint">No bet on the layout: choose a chip and press an area.</p>}
      <ul data-testid="craps-layout">
        {session.bets.map((b: BetView) => {
          const named = fields(b);
          return (
            <li key={JSON.stringify(named)}>
              {betName(b)}: {dollars(b.amount_cents)}
              {b.works ? " (working)" : " (off)"}
              {!b.may_take_down && " · stays until decided"}{" "}
              {b.may_call_off && (
                <button
                  type="button"
                  class="link"
                  disabled={act.busy}
                  title={b.works ? "It stays on the layout but no roll decides it until you call it on" : "Rolls decide it again"}
                  onClick={() => void send("bets", [{ change: "working", working: !b.works, ...named } as Schemas["Change"]])}
                >
                  {b.works ? "Call off" : "Call on"} {betName(b)}
                  {b.works ? " (keep it, not decided until called on)" : " (decided again from the next roll)"}
                </button>
              )}{" "}
              {b.may_take_down && (
                <button
                  type="button"
                  class="link"
                  disabled={act.busy}
                  onClick={() => void send("bets", [{ change: "remove", ...named } as Schemas["Change"]])}
                >
                  Take down {betName(b)} (back to your wallet)
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

export function CrapsHowToPlay(): JSX.Element {
  return (
    <details class="box">
      <summary>How to play craps</summary>
      <p>
        The shooter's first roll is the come-out. A pass line bet wins on 7 or 11 and loses on 2, 3 or 12; any other total
        becomes the point and the puck goes on it. The pass line then wins when the point is rolled again before a 7, and
        loses on the 7 (a seven out). Don't pass is the opposite, with 12 a push on the come-out.
      </p>
      <p>
        Once there is a point you may take odds behind your line bet, paid at true odds. Come and don't come work like the
        pass line from the next roll, moving to the number rolled. Place, buy and lay bets are on one number against the 7;
        the field, big 6 and 8, the hardways and the propositions in the centre are decided as their names say. Choose a
        chip, then press the area; a bet can be called off (it is not decided while off), or taken down where the rules
        allow.
      </p>
    </details>
  );
}
