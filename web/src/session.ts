// The three kinds of user each keep their own session (a player, a till, a member of staff), so
// one browser can show all three screens side by side; each has a client generated from the
// contract (openapi-fetch over the types in api.d.ts) that sends its bearer token.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./api";

export type Schemas = components["schemas"];
export type Area = "player" | "till" | "staff";

/** A refused request as the platform states it: problem+json with a stable code. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

const storageKey = (area: Area) => `lotto.${area}.token`;

function readToken(area: Area): string | null {
  try {
    return sessionStorage.getItem(storageKey(area));
  } catch {
    return null;
  }
}

const tokens: Record<Area, string | null> = {
  player: readToken("player"),
  till: readToken("till"),
  staff: readToken("staff"),
};

const listeners = new Set<() => void>();

export function tokenOf(area: Area): string | null {
  return tokens[area];
}

export function setToken(area: Area, token: string | null): void {
  tokens[area] = token;
  try {
    if (token) sessionStorage.setItem(storageKey(area), token);
    else sessionStorage.removeItem(storageKey(area));
  } catch {
    // Private windows may refuse storage: the session then lasts as long as the page.
  }
  listeners.forEach((listener) => listener());
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function clientFor(area: Area): Client<paths> {
  const client = createClient<paths>({ baseUrl: location.origin });
  client.use({
    onRequest({ request }) {
      const token = tokens[area];
      if (token) request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
    onResponse({ response }) {
      // An expired or ended session sends the user back to the login form.
      if (response.status === 401 && tokens[area]) setToken(area, null);
      return response;
    },
  });
  return client;
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

/** The answer's body, or the problem it states thrown as a [`Problem`]. */
export async function must<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const problem = (error ?? {}) as { code?: unknown; detail?: unknown; title?: unknown };
  throw new Problem(
    response.status,
    typeof problem.code === "string" ? problem.code : `http_${response.status}`,
    typeof problem.detail === "string" ? problem.detail : String(problem.title ?? response.statusText),
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

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}
