// Small pieces every screen shares: labelled fields, the problem banner, tabs that a keyboard
// and a screen reader can use, playing cards, bar charts, and the live-results subscription.
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type Area, dollars, endedNotice, Problem, type Schemas, when } from "./session";

export function Field(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: string;
  autoComplete?: string;
  inputMode?: "numeric" | "decimal" | "text" | "email";
  id?: string;
  autoFocus?: boolean;
  onEnter?: () => void;
  inputRef?: preact.RefObject<HTMLInputElement>;
}): JSX.Element {
  const id = props.id ?? `f-${props.label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <label class="field" for={id}>
      <span>{props.label}</span>
      <input
        id={id}
        ref={props.inputRef}
        type={props.type ?? "text"}
        value={props.value}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        autoFocus={props.autoFocus}
        onInput={(e) => props.onInput(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && props.onEnter) {
            e.preventDefault();
            props.onEnter();
          }
        }}
      />
    </label>
  );
}

/** What went wrong, read out by screen readers as it appears: the problem's detail (words and
 * dollars: the service keeps the rule it applies apart, `platform::words`), and what it adds
 * (the attempts a terminal has left); `staff` (the console) also see the code and the rule. */
export function ProblemBanner(props: { problem: unknown; staff?: boolean }): JSX.Element | null {
  if (!props.problem) return null;
  const problem = props.problem;
  const words = problem instanceof Error ? problem.message : String(problem);
  const text = words.charAt(0).toUpperCase() + words.slice(1);
  const attempts = problem instanceof Problem ? problem.context["attempts_left"] : undefined;
  return (
    <div class="problem" role="alert" data-code={problem instanceof Problem ? problem.code : undefined}>
      <p>
        {problem instanceof Problem ? (protectionWords(problem) ?? text) : text}
        {typeof attempts === "number" &&
          ` ${attempts} attempt${attempts === 1 ? "" : "s"} left before this terminal is locked.`}
      </p>
      {props.staff && problem instanceof Problem && (
        <p class="hint">
          Code: {problem.code}
          {problem.rule && ` · Rule: ${problem.rule}`}
        </p>
      )}
    </div>
  );
}

/** A player-protection refusal in words: what is left of the limit and when it resets, or when
 * a break ends; null for any other problem. */
function protectionWords(problem: Problem): string | null {
  const c = problem.context;
  const money = (key: string) => (typeof c[key] === "number" ? dollars(c[key] as number) : "—");
  if (problem.code === "limit_reached") {
    const kind = String(c["kind"] ?? "").replace("_", " ");
    if (c["kind"] === "single_stake") return `That is more than your single-stake limit of ${money("limit")}.`;
    if (c["kind"] === "time") {
      const frees = typeof c["resets_at"] === "string" ? `; time frees up from ${when(c["resets_at"])}` : "";
      return `You have played your ${String(c["period"] ?? "")} time limit of ${String(c["limit"] ?? "")} minutes${frees}.`;
    }
    const resets = typeof c["resets_at"] === "string" ? `; it resets at ${when(c["resets_at"])}` : "";
    return `You have ${money("left")} of your ${String(c["period"] ?? "")} ${kind} limit left${resets}.`;
  }
  if (problem.code === "play_suspended") {
    const until = typeof c["until"] === "string" ? ` until ${when(c["until"])}` : "";
    switch (c["reason"]) {
      case "self_exclusion":
        return `You have excluded yourself from play${until}: no stake is taken.`;
      case "closure":
        return `You have closed your account${until}: no stake is taken.`;
      case "exclusion_list":
        return "You are on an exclusion list: no stake is taken.";
      default:
        return `You are taking a break${until}: no stake is taken.`;
    }
  }
  return null;
}

/** Why the last session ended (idle, expired, ended elsewhere), above a login form; nothing after a logout. */
export function EndedNotice(props: { area: Area }): JSX.Element | null {
  const notice = endedNotice(props.area);
  if (!notice) return null;
  return (
    <p class="notice" role="alert" data-testid="session-ended">
      {notice.charAt(0).toUpperCase() + notice.slice(1)}
    </p>
  );
}

/** Runs `action` with a busy flag and the problem it raised, for a form's submit button. */
export function useAction(): {
  busy: boolean;
  problem: unknown;
  run: (action: () => Promise<void>) => Promise<void>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<unknown>(null);
  return {
    busy,
    problem,
    clear: () => setProblem(null),
    run: async (action) => {
      setBusy(true);
      setProblem(null);
      try {
        await action();
      } catch (e) {
        setProblem(e);
      } finally {
        setBusy(false);
      }
    },
  };
}

/** A button that asks "are you sure?" before a step that cannot be taken back at once, then
 * runs `act`; its problem shown beneath (with the code for `staff`). */
export function ConfirmButton(props: {
  ask: string;
  confirm: string;
  group: string;
  act: () => Promise<unknown>;
  staff?: boolean;
}): JSX.Element {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  return (
    <>
      {confirming ? (
        <div class="row" role="group" aria-label={props.group}>
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                await props.act();
                setConfirming(false);
              })
            }
          >
            {props.confirm}
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          {props.ask}
        </button>
      )}
      <ProblemBanner staff={props.staff} problem={action.problem} />
    </>
  );
}

/** Loads `load` when `deps` change; `reload` loads again. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { value: T | undefined; problem: unknown; reload: () => void } {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (v) => {
        if (current) {
          setValue(v);
          setProblem(null);
        }
      },
      (e: unknown) => {
        if (current) setProblem(e);
      },
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  return { value, problem, reload: () => setRound((r) => r + 1) };
}

/** A listing read a page at a time, newest first: the first page (read again when `deps`
 * change), and the older ones added by `older()`. `read(after)` reads the page after a cursor. */
export function usePages<T>(
  read: (after: string | undefined) => Promise<{ items: T[]; next?: string | null }>,
  deps: unknown[],
): { items: T[]; loaded: boolean; problem: unknown; next: string | null; busy: boolean; older: () => void } {
  const [more, setMore] = useState<{ items: T[]; next: string | null }>({ items: [], next: null });
  const first = useLoad(async () => {
    const page = await read(undefined);
    setMore({ items: [], next: page.next ?? null });
    return page;
  }, deps);
  const action = useAction();
  const next = more.items.length > 0 ? more.next : (first.value?.next ?? null);
  return {
    items: [...(first.value?.items ?? []), ...more.items],
    loaded: first.value !== undefined,
    problem: first.problem ?? action.problem,
    next,
    busy: action.busy,
    older: () => {
      if (next === null) return;
      void action.run(async () => {
        const page = await read(next);
        setMore({ items: [...more.items, ...page.items], next: page.next ?? null });
      });
    },
  };
}

export function Tabs<T extends string>(props: {
  label: string;
  tabs: readonly { id: T; title: string }[];
  current: T;
  onSelect: (id: T) => void;
}): JSX.Element {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const index = props.tabs.findIndex((t) => t.id === props.current);
  const move = (to: number) => {
    const n = props.tabs.length;
    const target = props.tabs[(to + n) % n];
    if (target) {
      props.onSelect(target.id);
      refs.current[(to + n) % n]?.focus();
    }
  };
  return (
    <div role="tablist" aria-label={props.label} class="tabs">
      {props.tabs.map((tab, i) => (
        <button
          key={tab.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={tab.id === props.current}
          aria-controls={`panel-${tab.id}`}
          tabIndex={tab.id === props.current ? 0 : -1}
          onClick={() => props.onSelect(tab.id)}
          onKeyDown={(e) => {
            if (e.key === "ArrowRight") move(index + 1);
            if (e.key === "ArrowLeft") move(index - 1);
          }}
        >
          {tab.title}
        </button>
      ))}
    </div>
  );
}

export function TabPanel(props: { id: string; children: ComponentChildren }): JSX.Element {
  return (
    <section role="tabpanel" id={`panel-${props.id}`} aria-labelledby={`tab-${props.id}`} class="panel">
      {props.children}
    </section>
  );
}

const SUITS: Record<string, [string, string]> = {
  S: ["♠", "spades"],
  H: ["♥", "hearts"],
  D: ["♦", "diamonds"],
  C: ["♣", "clubs"],
};
const RANKS: Record<string, string> = { A: "ace", K: "king", Q: "queen", J: "jack" };

/** A card as the API writes it (`10S`, `AH`). */
export function Card(props: { card: string }): JSX.Element {
  const rank = props.card.slice(0, -1);
  const [symbol, suit] = SUITS[props.card.slice(-1)] ?? ["?", "unknown"];
  const red = suit === "hearts" || suit === "diamonds";
  return (
    <span class={`card${red ? " red" : ""}`} role="img" aria-label={`${RANKS[rank] ?? rank} of ${suit}`}>
      {rank}
      {symbol}
    </span>
  );
}

/** Cards in a line of text (a best flush, a recalled hand). */
export function Cards(props: { cards: string[] }): JSX.Element {
  return (
    <span class="cards-inline">
      {props.cards.map((c, i) => (
        <Card key={i} card={c} />
      ))}
    </span>
  );
}

export function HiddenCard(): JSX.Element {
  return (
    <span class="card back" role="img" aria-label="face-down card">
      ?
    </span>
  );
}


export interface LiveDraws {
  open?: Schemas["DrawView"];
  drawn?: Schemas["DrawView"];
  powerball?: Schemas["PowerballDrawView"];
  connected: boolean;
}

/** The platform's live results (`GET /v1/draws/live`, Server-Sent Events); EventSource
 * reconnects by itself and sends the last draw number it saw. */
export function useLiveDraws(): LiveDraws {
  const [live, setLive] = useState<LiveDraws>({ connected: false });
  useEffect(() => {
    const source = new EventSource("/v1/draws/live");
    const take =
      (key: "open" | "drawn" | "powerball") =>
      (event: MessageEvent<string>): void => {
        const value: unknown = JSON.parse(event.data);
        setLive((now) => ({ ...now, [key]: value, connected: true }));
      };
    source.addEventListener("keno_open", take("open"));
    source.addEventListener("keno_draw", take("drawn"));
    source.addEventListener("powerball_drawing", take("powerball"));
    source.onopen = () => setLive((now) => ({ ...now, connected: true }));
    source.onerror = () => setLive((now) => ({ ...now, connected: false }));
    return () => source.close();
  }, []);
  return live;
}

/** Seconds until `iso`, ticking. */
export function useCountdown(iso: string | undefined): number | null {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (!iso) return null;
  return Math.max(0, Math.round((new Date(iso).getTime() - now) / 1000));
}

export function minutesSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** A whole number typed into a field, when it is one from `min` to `max`; else null. */
export function wholeIn(text: string, min: number, max: number): number | null {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isInteger(n) && n >= min && n <= max ? n : null;
}

/** A labelled field for a whole number from `min` to `max`, marked invalid while it is not one. */
export function WholeField(props: {
  id: string;
  label: string;
  min: number;
  max: number;
  value: string;
  onInput: (text: string) => void;
}): JSX.Element {
  return (
    <label class="field" for={props.id}>
      <span>{props.label}</span>
      <input
        id={props.id}
        type="number"
        min={props.min}
        max={props.max}
        value={props.value}
        aria-invalid={wholeIn(props.value, props.min, props.max) === null}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </label>
  );
}

const GAME_NAMES: Record<string, string> = {
  castle_keno: "Castle Keno",
  keno: "Castle Keno",
  powerball: "Powerball",
  blackjack: "Blackjack",
  i_luv_suits: "I Luv Suits",
  craps: "Craps",
};

/** A game as players call it ("Castle Keno" for `castle_keno`; an instant game by its number,
 * named `instant-<number>` or, in rows written before that name, the bare number). */
export function gameName(game: unknown): string {
  if (typeof game === "number") return `Instant game ${game}`;
  const key = String(game ?? "");
  const instant = /^instant-(\d+)$/.exec(key);
  if (instant) return `Instant game ${instant[1]}`;
  return GAME_NAMES[key] ?? key.replace(/_/g, " ");
}

/** A wide table's frame: it scrolls sideways on a narrow screen, and takes the keyboard's focus
 * so that it can be scrolled without a mouse. With `cards`, a table of records (one row each)
 * shows each row as a card of "column: value" lines on a phone instead (style.css): every cell is
 * labelled with its column's header here, again whenever the table changes. */
export function Scroll(props: { label: string; cards?: boolean; children: ComponentChildren }): JSX.Element {
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = frame.current;
    if (!props.cards || !root) return;
    const label = () => {
      for (const table of Array.from(root.querySelectorAll("table"))) {
        const headers = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent?.trim() ?? "");
        for (const row of Array.from(table.querySelectorAll("tbody tr, tfoot tr"))) {
          let column = 0;
          for (const cell of Array.from(row.children)) {
            const span = (cell as HTMLTableCellElement).colSpan || 1;
            // A cell across columns (a total's words) is its own label.
            const header = span > 1 ? "" : (headers[column] ?? "");
            if (cell.getAttribute("data-label") !== header) cell.setAttribute("data-label", header);
            column += span;
          }
        }
      }
    };
    label();
    // Rows come and go as pages turn and lists refresh; attributes are left out, so labelling
    // does not set itself off.
    const observer = new MutationObserver(label);
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [props.cards]);
  return (
    <div ref={frame} class={props.cards ? "scroll cards" : "scroll"} tabIndex={0} role="region" aria-label={props.label}>
      {props.children}
    </div>
  );
}

/** Days to read: `from` and `to` (either left empty for the reader's default), chosen with
 * "Show these days"; `children` stand beside them (a download). */
export function DaysForm(props: {
  id: string;
  label: string;
  onChoose: (days: { from?: string; to?: string }) => void;
  children?: ComponentChildren;
}): JSX.Element {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  return (
    <form
      class="row"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        props.onChoose({ from: from || undefined, to: to || undefined });
      }}
    >
      <Field id={`${props.id}-from`} label="From" type="date" value={from} onInput={setFrom} />
      <Field id={`${props.id}-to`} label="To" type="date" value={to} onInput={setTo} />
      <button type="submit">Show these days</button>
      {props.children}
    </form>
  );
}
