// "Play responsibly": the help line, the player's standing, deposit, money and time limits, the
// reality check's interval, breaks, self-exclusion, closure and the activity statement.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, centsOf, dollars, must, publicApi, type Schemas, signOut, when } from "../shared/session";
import { ConfirmButton, DaysForm, Field, gameName, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";

export function LimitsPanel(): JSX.Element {
  const limits = useLoad(() => must(api.player.GET("/v1/me/deposit-limits")), []);
  const help = useLoad(() => must(publicApi.GET("/v1/responsible-gaming")), []);
  const [period, setPeriod] = useState<Schemas["LimitPeriod"]>("daily");
  const [amount, setAmount] = useState("100");
  const [exclusion, setExclusion] = useState<Schemas["ExclusionPeriod"]>("6_months");
  const save = useAction();
  return (
    <div>
      <Standing />
      <h2>Deposit limits</h2>
      <p class="hint">A lower limit applies at once; a higher one after 24 hours.</p>
      <ul>
        {(limits.value ?? []).map((l) => (
          <li key={l.period}>
            {l.period}: {l.amount == null ? "none" : dollars(l.amount)}
            {l.pending_amount != null ? ` (becomes ${dollars(l.pending_amount)} on ${when(l.pending_from)})` : ""}
          </li>
        ))}
      </ul>
      <form
        class="box"
        aria-label="Set a deposit limit"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            const cents = centsOf(amount);
            if (cents === null) throw new Error("Enter the limit in dollars.");
            await must(api.player.PUT("/v1/me/deposit-limits", { body: { period, amount: cents } }));
            limits.reload();
          });
        }}
      >
        <label class="field" for="limit-period">
          <span>Period</span>
          <select
            id="limit-period"
            value={period}
            onChange={(e) => setPeriod(e.currentTarget.value as Schemas["LimitPeriod"])}
          >
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
            <option value="monthly">Monthly</option>
          </select>
        </label>
        <Field id="limit-amount" label="Limit (dollars)" inputMode="decimal" value={amount} onInput={setAmount} />
        <button type="submit" disabled={save.busy}>
          Save limit
        </button>
        <ProblemBanner problem={save.problem} />
      </form>
      <MoneyLimits />
      <h2>Take a break</h2>
      <TimeOut />
      <p class="hint">Self-exclusion ends your session and cannot be undone before its end.</p>
      <div class="box">
        <label class="field" for="exclusion">
          <span>Exclude me for</span>
          <select
            id="exclusion"
            value={exclusion}
            onChange={(e) => setExclusion(e.currentTarget.value as Schemas["ExclusionPeriod"])}
          >
            <option value="6_months">6 months</option>
            <option value="1_year">1 year</option>
            <option value="5_years">5 years</option>
            <option value="permanent">Permanently</option>
          </select>
        </label>
        <p class="hint">
          After its end you play again only a day after you ask; a permanent exclusion never ends.
        </p>
        <ConfirmThenLeave
          ask="Self-exclude…"
          confirm="Yes, exclude me"
          group="Confirm self-exclusion"
          act={() => must(api.player.POST("/v1/me/self-exclusion", { body: { period: exclusion } }))}
        />
      </div>
      <CloseAccount />
      {/* Last, so its text arriving moves nothing above it. */}
      <div class="notice" data-testid="help-line">
        <h2>Need to talk to someone?</h2>
        <p>{help.value?.help_line ?? "…"}</p>
      </div>
    </div>
  );
}

/** Whether the player may play; after an exclusion's end or a closure, the request to come back. */
function Standing(): JSX.Element | null {
  const me = useLoad(() => must(api.player.GET("/v1/me")), []);
  const ask = useAction();
  const p = me.value?.player;
  if (!p || p.standing === "active") return null;
  const termOver =
    p.standing === "self_excluded" &&
    !p.excluded_permanently &&
    p.self_excluded_until != null &&
    new Date(p.self_excluded_until) <= new Date();
  const words: Record<Exclude<Schemas["Standing"], "active">, string> = {
    on_break: "You are taking a break",
    self_excluded: p.excluded_permanently ? "You have excluded yourself permanently" : "You have excluded yourself",
    closed: "Your account is closed",
    listed: "You are on an exclusion list",
  };
  const request = (path: "/v1/me/self-exclusion/return" | "/v1/me/reopening") =>
    void ask.run(async () => {
      await must(api.player.POST(path));
      me.reload();
    });
  return (
    <div class="notice" role="status" data-testid="standing">
      <p>
        {words[p.standing]}
        {p.play_resumes_at ? `: you may play again from ${when(p.play_resumes_at)}.` : "."} Your balance is yours to
        withdraw.
      </p>
      {termOver && !p.play_resumes_at && (
        <button type="button" onClick={() => request("/v1/me/self-exclusion/return")}>
          Ask to play again (in 24 hours)
        </button>
      )}
      {p.standing === "closed" && !p.play_resumes_at && (
        <button type="button" onClick={() => request("/v1/me/reopening")}>
          Ask to reopen my account (in 24 hours)
        </button>
      )}
      <ProblemBanner problem={ask.problem} />
    </div>
  );
}

/** Closing the account: no more play or deposits; the balance stays to withdraw. */
function CloseAccount(): JSX.Element {
  return (
    <div class="box">
      <h2>Close my account</h2>
      <p class="hint">
        No more play or deposits; tickets for future draws are refunded; you may still log in to withdraw your balance.
        Reopening takes a day after you ask.
      </p>
      <ConfirmThenLeave
        ask="Close my account…"
        confirm="Yes, close my account"
        group="Confirm the closure"
        act={() => must(api.player.POST("/v1/me/closure"))}
      />
    </div>
  );
}

const WINDOW_NAMES: Record<Schemas["LimitPeriod"], string> = {
  daily: "24 hours",
  weekly: "7 days",
  monthly: "30 days",
};

/** The rolling window a limit covers. */
function WindowSelect(props: {
  id: string;
  value: Schemas["LimitPeriod"];
  onChange: (period: Schemas["LimitPeriod"]) => void;
}): JSX.Element {
  return (
    <label class="field" for={props.id}>
      <span>Over</span>
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value as Schemas["LimitPeriod"])}
      >
        {(Object.keys(WINDOW_NAMES) as Schemas["LimitPeriod"][]).map((p) => (
          <option key={p} value={p}>
            {WINDOW_NAMES[p]}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A button that asks "are you sure?" before a step the player cannot take back at once (a
 * break, an exclusion, a closure), then runs it and logs out. */
function ConfirmThenLeave(props: {
  ask: string;
  confirm: string;
  group: string;
  act: () => Promise<unknown>;
}): JSX.Element {
  return (
    <ConfirmButton
      ask={props.ask}
      confirm={props.confirm}
      group={props.group}
      act={async () => {
        await props.act();
        signOut("player");
      }}
    />
  );
}

/** Time limits: minutes played per rolling window, with what each has used. */
function TimeLimits(props: { limits: Schemas["Limits"] | undefined; onChange: () => void }): JSX.Element {
  const [period, setPeriod] = useState<Schemas["LimitPeriod"]>("daily");
  const [minutes, setMinutes] = useState("120");
  const save = useAction();
  return (
    <div>
      <h2>Time limits</h2>
      <p class="hint">Time played counts from the first to the last stake of each session.</p>
      <ul aria-label="Your time limits">
        {(props.limits?.time ?? []).map((l) => (
          <li key={l.period}>
            {WINDOW_NAMES[l.period]}: {l.minutes == null ? "none" : `${l.minutes} min`}, {l.played_minutes} min played
            {l.pending_from
              ? ` (becomes ${l.pending_removal ? "none" : `${l.pending_minutes ?? 0} min`} on ${when(l.pending_from)})`
              : ""}
          </li>
        ))}
      </ul>
      <form
        class="box"
        aria-label="Set a time limit"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            const value = Number.parseInt(minutes, 10);
            if (!Number.isInteger(value)) throw new Error("Enter the limit in minutes.");
            await must(api.player.PUT("/v1/me/time-limits", { body: { period, minutes: value } }));
            props.onChange();
          });
        }}
      >
        <WindowSelect id="time-limit-period" value={period} onChange={setPeriod} />
        <Field id="time-limit-minutes" label="Limit (minutes)" inputMode="numeric" value={minutes} onInput={setMinutes} />
        <button type="submit" disabled={save.busy}>
          Save time limit
        </button>
        <ProblemBanner problem={save.problem} />
      </form>
    </div>
  );
}

/** How often the reality check comes while the player plays: every 15, 30 or 60 minutes (the
 * choices the API takes). A shorter interval brings the game session's next check forward at once. */
function RealityCheckInterval(): JSX.Element {
  const session = useLoad(() => must(api.player.GET("/v1/me/play-session")), []);
  const [chosen, setChosen] = useState<number | null>(null);
  const [saved, setSaved] = useState<number | null>(null);
  const save = useAction();
  const current = chosen ?? session.value?.interval_minutes ?? 60;
  return (
    <form
      class="box"
      aria-labelledby="reality-check-interval-title"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(async () => {
          await must(api.player.PUT("/v1/me/reality-check", { body: { interval_minutes: current } }));
          setSaved(current);
        });
      }}
    >
      <h2 id="reality-check-interval-title">Reality checks</h2>
      <p class="hint">While you play, a reality check stops the game to show how long you have played and what you staked and won.</p>
      <label class="field" for="reality-check-interval">
        <span>A reality check every</span>
        <select
          id="reality-check-interval"
          value={String(current)}
          onChange={(e) => {
            setChosen(Number(e.currentTarget.value));
            setSaved(null);
          }}
        >
          <option value="15">15 minutes</option>
          <option value="30">30 minutes</option>
          <option value="60">60 minutes</option>
        </select>
      </label>
      <button type="submit" disabled={save.busy}>
        Save reality check
      </button>
      {saved !== null && (
        <p role="status" data-testid="reality-check-saved">
          A reality check comes every {saved} minutes.
        </p>
      )}
      <ProblemBanner problem={save.problem} />
    </form>
  );
}

const KIND_NAMES: Record<Schemas["MoneyLimitKind"], string> = {
  loss: "Loss (stakes less wins)",
  wager: "Wager (total staked)",
  single_stake: "Single stake",
};

/** Loss, wager and single-stake limits: what each allows, what is left and when it resets. */
function MoneyLimits(): JSX.Element {
  const limits = useLoad(() => must(api.player.GET("/v1/me/limits")), []);
  const [kind, setKind] = useState<Schemas["MoneyLimitKind"]>("loss");
  const [period, setPeriod] = useState<Schemas["LimitPeriod"]>("daily");
  const [amount, setAmount] = useState("50");
  const save = useAction();
  return (
    <div>
      <h2>Play limits</h2>
      <p class="hint">
        Checked with every stake in every game. A lower limit applies at once; a higher one, or none, after 24 hours.
      </p>
      <ul aria-label="Your play limits">
        {(limits.value?.money ?? []).map((l) => (
          <li key={`${l.kind}-${l.period ?? "each"}-${l.source}`}>
            {KIND_NAMES[l.kind]}
            {l.period ? `, ${l.period}` : ""}
            {l.source === "operator" ? " (set by the operator)" : ""}:{" "}
            {l.cents == null ? "none" : dollars(l.cents)}
            {l.cents != null && l.kind !== "single_stake" && l.left != null ? `, ${dollars(l.left)} left` : ""}
            {l.resets_at ? ` (resets at ${when(l.resets_at)})` : ""}
            {l.pending_from
              ? ` (becomes ${l.pending_removal ? "none" : dollars(l.pending_cents ?? 0)} on ${when(l.pending_from)})`
              : ""}
          </li>
        ))}
      </ul>
      <form
        class="box"
        aria-label="Set a play limit"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            const cents = centsOf(amount);
            if (cents === null) throw new Error("Enter the limit in dollars.");
            const body = { kind, period: kind === "single_stake" ? null : period, amount: cents };
            await must(api.player.PUT("/v1/me/limits", { body }));
            limits.reload();
          });
        }}
      >
        <label class="field" for="play-limit-kind">
          <span>Limit</span>
          <select
            id="play-limit-kind"
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as Schemas["MoneyLimitKind"])}
          >
            <option value="loss">{KIND_NAMES.loss}</option>
            <option value="wager">{KIND_NAMES.wager}</option>
            <option value="single_stake">{KIND_NAMES.single_stake}</option>
          </select>
        </label>
        {kind !== "single_stake" && <WindowSelect id="play-limit-period" value={period} onChange={setPeriod} />}
        <Field id="play-limit-amount" label="Limit (dollars)" inputMode="decimal" value={amount} onInput={setAmount} />
        <button type="submit" disabled={save.busy}>
          Save play limit
        </button>
        <ProblemBanner problem={save.problem} />
      </form>
      <TimeLimits limits={limits.value} onChange={limits.reload} />
      <RealityCheckInterval />
      <Statement />
    </div>
  );
}

/** A short break: 24 hours to 90 days, at once. */
function TimeOut(): JSX.Element {
  const [period, setPeriod] = useState<Schemas["TimeOutPeriod"]>("24_hours");
  return (
    <div class="box">
      <label class="field" for="time-out">
        <span>Pause my play for</span>
        <select id="time-out" value={period} onChange={(e) => setPeriod(e.currentTarget.value as Schemas["TimeOutPeriod"])}>
          <option value="24_hours">24 hours</option>
          <option value="72_hours">72 hours</option>
          <option value="7_days">7 days</option>
          <option value="30_days">30 days</option>
          <option value="90_days">90 days</option>
        </select>
      </label>
      <p class="hint">Your session ends at once; you may log in to see your wallet and withdraw.</p>
      <ConfirmThenLeave
        ask="Take a break…"
        confirm="Yes, pause my play"
        group="Confirm the break"
        act={() => must(api.player.POST("/v1/me/time-out", { body: { period } }))}
      />
    </div>
  );
}

/** What the player deposited, withdrew, staked and won: today, 7 and 30 days, per game, and
 * the days chosen, downloadable as CSV. */
function Statement(): JSX.Element {
  const [range, setRange] = useState<{ from?: string; to?: string }>({});
  const statement = useLoad(() => must(api.player.GET("/v1/me/statement", { params: { query: range } })), [range]);
  const [csv, setCsv] = useState<{ href: string; name: string } | null>(null);
  const download = useAction();
  const s = statement.value;
  const rows: [string, Schemas["Totals"] | undefined][] = [
    ["Today", s?.today],
    ["Last 7 days", s?.last_7_days],
    ["Last 30 days", s?.last_30_days],
    ...(s ? ([["Days chosen", s.totals]] as [string, Schemas["Totals"]][]) : []),
    ...(s?.games ?? []).map((g): [string, Schemas["Totals"]] => [gameName(g.game), g.totals]),
  ];
  return (
    <div>
      <h2>Your activity</h2>
      <DaysForm
        id="statement"
        label="Choose the days"
        onChoose={(chosen) => {
          setCsv(null);
          setRange(chosen);
        }}
      >
        <button
          type="button"
          disabled={download.busy}
          onClick={() =>
            void download.run(async () => {
              const { data, error, response } = await api.player.GET("/v1/me/statement.csv", {
                params: { query: range },
                parseAs: "text",
              });
              if (error !== undefined || data === undefined) throw new Error(`The statement could not be read (${response.status}).`);
              const name = `statement-${s?.from ?? "from"}-${s?.to ?? "to"}.csv`;
              setCsv({ href: URL.createObjectURL(new Blob([data], { type: "text/csv" })), name });
            })
          }
        >
          Prepare CSV
        </button>
        {csv && (
          <a href={csv.href} download={csv.name} data-testid="statement-csv">
            Download {csv.name}
          </a>
        )}
      </DaysForm>
      <ProblemBanner problem={statement.problem ?? download.problem} />
      {s && (
        <p class="hint" data-testid="statement-days">
          Days chosen: {s.from} to {s.to} ({s.time_zone}); each game's line covers them.
        </p>
      )}
      <Scroll label="Your activity" cards>
        <table aria-label="Your activity">
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col">Deposited</th>
              <th scope="col">Withdrawn</th>
              <th scope="col">Staked</th>
              <th scope="col">Won</th>
              <th scope="col">Net</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([name, t]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>{dollars(t?.deposited ?? 0)}</td>
                <td>{dollars(t?.withdrawn ?? 0)}</td>
                <td>{dollars(t?.staked ?? 0)}</td>
                <td>{dollars(t?.won ?? 0)}</td>
                <td>{dollars(t?.net ?? 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </div>
  );
}
