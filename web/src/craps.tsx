// The craps layout: sit down at a table, make bets (a bet on a number names it), take them down,
// and roll; the puck, the dice and everything the roll decided are shown, and the layout's bets
// with whether each works on the next roll. Every bet of 111-501-44(c) can be made here.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, centsOf, dollars, must, newKey, type Schemas } from "./session";
import { Field, ProblemBanner, useAction } from "./ui";

type Bet = Schemas["Bet"];
type Play = Schemas["CrapsPlay"];
type Session = Schemas["CrapsSession"];

// Each bet the layout offers, its words, and what it is on when it names a number.
const BETS: { kind: string; label: string; numbers?: number[] }[] = [
  { kind: "pass", label: "Pass line" },
  { kind: "dont_pass", label: "Don't pass" },
  { kind: "come", label: "Come" },
  { kind: "dont_come", label: "Don't come" },
  { kind: "pass_odds", label: "Odds behind the pass line" },
  { kind: "dont_pass_odds", label: "Odds laid behind don't pass" },
  { kind: "come_odds", label: "Come odds", numbers: [4, 5, 6, 8, 9, 10] },
  { kind: "dont_come_odds", label: "Don't come odds", numbers: [4, 5, 6, 8, 9, 10] },
  { kind: "put", label: "Put", numbers: [4, 5, 6, 8, 9, 10] },
  { kind: "put_odds", label: "Put odds", numbers: [4, 5, 6, 8, 9, 10] },
  { kind: "place", label: "Place to win", numbers: [4, 5, 6, 8, 9, 10] },
  { kind: "buy", label: "Buy", numbers: [4, 5, 6, 8, 9, 10] },
  { kind: "lay", label: "Lay", numbers: [4, 5, 6, 8, 9, 10] },
  { kind: "hardway", label: "Hardway", numbers: [4, 6, 8, 10] },
  { kind: "big6", label: "Big 6" },
  { kind: "big8", label: "Big 8" },
  { kind: "field", label: "Field" },
  { kind: "any_seven", label: "Any seven" },
  { kind: "any_craps", label: "Any craps" },
  { kind: "two", label: "Two" },
  { kind: "three", label: "Three" },
  { kind: "twelve", label: "Twelve" },
  { kind: "eleven", label: "Eleven" },
  { kind: "horn", label: "Horn" },
  { kind: "horn_high", label: "Horn high", numbers: [2, 3, 11, 12] },
  { kind: "world", label: "World" },
  { kind: "three_way_craps", label: "3-way craps" },
  { kind: "c_and_e", label: "C and E" },
  { kind: "high_low", label: "High-low" },
  { kind: "ace_deuce_any_craps", label: "Ace-deuce / any craps" },
  { kind: "all_small", label: "All small" },
  { kind: "all_tall", label: "All tall" },
  { kind: "make_em_all", label: "Make 'em all" },
  { kind: "hot_shooter", label: "Hot shooter" },
];

function betOf(kind: string, number: number): Bet {
  const spec = BETS.find((b) => b.kind === kind);
  return (spec?.numbers ? { bet: kind, number } : { bet: kind }) as Bet;
}

function betName(bet: Bet): string {
  const spec = BETS.find((b) => b.kind === bet.bet);
  const label = spec?.label ?? bet.bet.replace(/_/g, " ");
  return "number" in bet ? `${label} ${bet.number}` : label;
}

export function CrapsTable(props: { onMoney: () => void; resume?: Session | undefined }): JSX.Element {
  // A session left with bets on the layout is taken up where it stands.
  const [session, setSession] = useState<Session | null>(props.resume ?? null);
  const [last, setLast] = useState<Play["result"] | null>(null);
  const [kind, setKind] = useState("pass");
  const [number, setNumber] = useState(6);
  const [amount, setAmount] = useState("10");
  const act = useAction();
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
  const place = () => {
    const cents = centsOf(amount);
    if (cents === null) return act.run(async () => Promise.reject(new Error("Enter the bet in dollars.")));
    return send("bets", [{ change: "place", amount_cents: cents, ...betOf(kind, number) } as Schemas["Change"]]);
  };
  const numbers = BETS.find((b) => b.kind === kind)?.numbers;
  return (
    <div>
      <h2>Craps</h2>
      {!session && (
        <button type="button" onClick={() => void sit()} disabled={act.busy}>
          Sit down at a table
        </button>
      )}
      <ProblemBanner problem={act.problem} />
      {session && (
        <div>
          <p data-testid="craps-puck">
            {session.point ? `Point: ${session.point} (puck on)` : "Come-out roll (puck off)"} · odds up to {session.rules.odds_multiple}x ·
            on the layout {dollars(session.on_layout_cents)}
          </p>
          <form
            class="box"
            aria-label="Make a bet"
            onSubmit={(e) => {
              e.preventDefault();
              void place();
            }}
          >
            <label class="field" for="craps-bet">
              <span>Bet</span>
              <select id="craps-bet" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
                {BETS.map((b) => (
                  <option key={b.kind} value={b.kind}>
                    {b.label}
                  </option>
                ))}
              </select>
            </label>
            {numbers && (
              <label class="field" for="craps-number">
                <span>On</span>
                <select id="craps-number" value={number} onChange={(e) => setNumber(Number(e.currentTarget.value))}>
                  {numbers.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <Field id="craps-amount" label="Amount (dollars)" inputMode="decimal" value={amount} onInput={setAmount} />
            <div class="row">
              <button type="submit" disabled={act.busy}>
                Place bet
              </button>
              <button type="button" data-action="roll" disabled={act.busy} onClick={() => void send("rolls", [])}>
                Roll the dice
              </button>
            </div>
          </form>
          <h3>The layout</h3>
          <ul data-testid="craps-layout">
            {session.bets.map((b) => (
              <li key={JSON.stringify(b)}>
                {betName(b as unknown as Bet)}: {dollars(b.amount_cents)}
                {b.works ? "" : " (off)"}{" "}
                <button
                  type="button"
                  disabled={act.busy}
                  onClick={() => {
                    const { bet, number: on, dice, halves } = b as unknown as Record<string, unknown>;
                    const named = Object.fromEntries(Object.entries({ bet, number: on, dice, halves }).filter(([, v]) => v !== undefined));
                    void send("bets", [{ change: "remove", ...named } as Schemas["Change"]]);
                  }}
                >
                  Take down
                </button>
              </li>
            ))}
          </ul>
          {last?.roll && (
            <div role="status" data-testid="craps-roll">
              <p data-testid="craps-dice">
                Rolled {last.roll.roll.die1} and {last.roll.roll.die2}: <strong>{last.roll.total}</strong>
                {last.roll.power_odds ? " · power odds lit" : ""}
                {last.roll.seven_out ? " · seven out" : ""}
              </p>
              <ul data-testid="craps-outcomes">
                {last.roll.outcomes.map((o, i) => (
                  <li key={i}>
                    {betName(o as unknown as Bet)} {dollars(o.amount_cents)}: {o.result}
                    {o.returned_cents ? `, back ${dollars(o.returned_cents)}` : ""}
                  </li>
                ))}
              </ul>
              <p>
                Balance {dollars(last.balance_before_cents)} → <strong data-testid="craps-balance">{dollars(last.balance_after_cents)}</strong>
              </p>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
