// The three kinds of user each keep their own session (a player, a till, a member of staff), so
// one browser can show all three screens side by side; each has a client generated from the
// contract (openapi-fetch over the types in api.d.ts) that sends its bearer token.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "../api";

export type Schemas = components["schemas"];
export type Area = "player" | "till" | "staff";

/** A refused request as the platform states it: problem+json with a stable code. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    /** What the problem says beyond its words (`attempts_left` after a wrong VIRN, ...). */
    readonly context: Record<string, unknown> = {},
    /** The rule the refusal applies (`K.A.R. 111-501-44(a)(8)`): shown to staff only. */
    readonly rule: string | null = null,
  ) {
    super(detail);
  }
}

// A session as the page holds it: the access token sent with each request, the refresh token
// that renews it (each good once), and when the access token expires. Kept in sessionStorage (this
// tab only), so a reload keeps the session and closing the tab forgets it.
interface Held {
  access: string;
  refresh: string | null;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** A till's shop and label, for its header. */
  place?: Schemas["Place"] | null;
  /** When this identity logged in before this session; null on its first login. */
  previousLogin?: string | null;
}

type Login = Schemas["LoginResponse"];

const storageKey = (area: Area) => `lotto.${area}.session`;
const noticeKey = (area: Area) => `lotto.${area}.ended`;

function read<T>(key: string): T | null {
  try {
    const text = sessionStorage.getItem(key);
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

function write(key: string, value: unknown): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private windows may refuse storage: the session then lasts as long as the page.
  }
}

const held: Record<Area, Held | null> = {
  player: read<Held>(storageKey("player")),
  till: read<Held>(storageKey("till")),
  staff: read<Held>(storageKey("staff")),
};
const timers: Partial<Record<Area, number>> = {};
const renewing: Partial<Record<Area, Promise<boolean>>> = {};

const listeners = new Set<() => void>();

export function tokenOf(area: Area): string | null {
  return held[area]?.access ?? null;
}

/** The shop and till `area`'s session stands at (a till's), as its login named them. */
export function placeOf(area: Area): Schemas["Place"] | null {
  return held[area]?.place ?? null;
}

/** When `area`'s identity last logged in before this session (null: this is its first). */
export function previousLoginOf(area: Area): string | null {
  return held[area]?.previousLogin ?? null;
}

/** Why the last session of `area` ended, in words for the login form; null after a logout. */
export function endedNotice(area: Area): string | null {
  return read<string>(noticeKey(area));
}

function keep(area: Area, session: Held | null, notice: string | null): void {
  held[area] = session;
  write(storageKey(area), session);
  write(noticeKey(area), notice);
  if (timers[area] !== undefined) window.clearTimeout(timers[area]);
  delete timers[area];
  if (session) schedule(area, session);
  listeners.forEach((listener) => listener());
}

/** A login's (or a renewal's) tokens become `area`'s session. */
export function signIn(area: Area, login: Login): void {
  keep(
    area,
    {
      access: login.access_token,
      refresh: login.refresh_token,
      expiresAt: Date.now() + login.expires_in * 1000,
      place: login.place ?? null,
      // A renewal says nothing of it: the login's answer is kept.
      previousLogin: login.previous_login_at ?? held[area]?.previousLogin ?? null,
    },
    null,
  );
}

/** Forgets `area`'s session: a logout (no notice), or an ending the page explains (`notice`). */
export function signOut(area: Area, notice: string | null = null): void {
  keep(area, null, notice);
}

// The access token is renewed a little before it expires, so no request meets an expired one.
// Renewing is not using: the server ends a session left idle past its timeout whatever the page
// does, and the renewal that finds it ended brings the reason to the login form.
function schedule(area: Area, session: Held): void {
  const lifetime = session.expiresAt - Date.now();
  const margin = Math.min(30_000, lifetime / 4);
  timers[area] = window.setTimeout(() => void renew(area), Math.max(500, lifetime - margin));
}

/** Renews `area`'s session once (concurrent callers share the one renewal); false if it ended. */
export function renew(area: Area): Promise<boolean> {
  const pending = renewing[area];
  if (pending) return pending;
  const run = (async () => {
    const refresh = held[area]?.refresh;
    if (!refresh) return false;
    try {
      const response = await fetch(`${location.origin}/v1/sessions/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: refresh }),
      });
      const body = (await response.json().catch(() => ({}))) as Partial<Login> & { detail?: string };
      if (response.ok && body.access_token) {
        signIn(area, body as Login);
        return true;
      }
      if (response.status === 401) {
        signOut(area, body.detail ?? "Your session has ended; log in again.");
        return false;
      }
    } catch {
      // Offline for a moment: the next request tries again.
    }
    if (held[area]) timers[area] = window.setTimeout(() => void renew(area), 5_000);
    return held[area] !== null;
  })().finally(() => {
    delete renewing[area];
  });
  renewing[area] = run;
  return run;
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function clientFor(area: Area): Client<paths> {
  const client = createClient<paths>({ baseUrl: location.origin });
  client.use({
    async onRequest({ request }) {
      // A token about to expire (a laptop woken from sleep) is renewed before it is sent.
      const session = held[area];
      if (session && session.expiresAt - Date.now() < 2_000) await renew(area);
      const token = tokenOf(area);
      if (token) request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
    async onResponse({ response }) {
      // An ended session sends the user back to the login form, saying why.
      if (response.status === 401 && held[area]) {
        const problem = (await response.clone().json().catch(() => ({}))) as { detail?: string };
        signOut(area, problem.detail ?? "Your session has ended; log in again.");
      }
      return response;
    },
  });
  return client;
}

// A session kept from before a reload is renewed on its schedule.
for (const area of ["player", "till", "staff"] as const) {
  const session = held[area];
  if (session) schedule(area, session);
}

export const api: Record<Area, Client<paths>> = {
  player: clientFor("player"),
  till: clientFor("till"),
  staff: clientFor("staff"),
};

/** The public reads need no session. */
export const publicApi: Client<paths> = createClient<paths>({ baseUrl: location.origin });

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** A stake answered "your reality check is due": the event the player's page listens for. */
export const REALITY_CHECK_DUE = "reality_check_due";

/** The answer's body, or the problem it states thrown as a [`Problem`]. */
export async function must<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const problem = (error ?? {}) as { code?: unknown; detail?: unknown; title?: unknown; context?: unknown; rule?: unknown };
  if (problem.code === REALITY_CHECK_DUE) {
    // Whichever game asked, the player's page shows the reality check (RealityCheckDialog).
    window.dispatchEvent(new CustomEvent(REALITY_CHECK_DUE, { detail: problem.context }));
  }
  throw new Problem(
    response.status,
    typeof problem.code === "string" ? problem.code : `http_${response.status}`,
    typeof problem.detail === "string" ? problem.detail : String(problem.title ?? response.statusText),
    typeof problem.context === "object" && problem.context !== null ? (problem.context as Record<string, unknown>) : {},
    typeof problem.rule === "string" ? problem.rule : null,
  );
}

/** A fresh Idempotency-Key: one per thing the user means to do once. */
export function newKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Integer cents as dollars, the one way money is shown. */
export function dollars(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const whole = Math.abs(cents);
  return `${sign}$${Math.floor(whole / 100).toLocaleString("en-US")}.${String(whole % 100).padStart(2, "0")}`;
}

/** Dollars typed by a user ("12.50") as integer cents, or null when it is not an amount. */
export function centsOf(text: string): number | null {
  const match = /^\s*\$?(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/** The lottery's time zone: every time a person reads is in it, labelled (CST or CDT), whatever
 * the zone of the device showing it (the server prints receipts in it too: domain::clock). */
export const LOTTERY_ZONE = "America/Chicago";

/** A time as the lottery keeps it: "Dec 6, 2026, 6:05 PM CST". */
export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString("en-US", {
    timeZone: LOTTERY_ZONE,
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });
}

/** The start of today in the lottery's zone (a till's day, a report's), as an instant. */
export function lotteryMidnight(now: Date = new Date()): Date {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone: LOTTERY_ZONE,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  });
  const parts = (at: Date) => {
    const got = (type: string) => Number(format.formatToParts(at).find((p) => p.type === type)?.value ?? 0);
    return { year: got("year"), month: got("month"), day: got("day"), hour: got("hour"), minute: got("minute") };
  };
  const today = parts(now);
  const guess = Date.UTC(today.year, today.month - 1, today.day);
  // The zone's offset at that instant: its wall clock there less the instant itself.
  const wall = parts(new Date(guess));
  const offset = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute) - guess;
  return new Date(guess - offset);
}
