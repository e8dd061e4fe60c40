// Where the player is (issue 49 §Location): an online stake needs a check by the geolocation
// provider, for this login and this network address, that placed the device in the lottery's
// jurisdiction, not older than the operator's limit (20 minutes by default). The page asks for
// one at once, and again before the last one runs out, as a provider's device kit would; what
// the kit sends is, here, the sandbox's answer the player picks (in the jurisdiction, outside
// it, or behind a VPN).
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, must, type Schemas, when } from "../shared/session";
import { ProblemBanner, useAction } from "../shared/ui";

type Check = Schemas["LocationCheckView"];

/** What the sandbox provider's device kit reports, as the player chooses it. */
const PACKETS: { value: string; words: string }[] = [
  { value: "sandbox_inside", words: "in the state" },
  { value: "sandbox_outside", words: "outside the state" },
  { value: "sandbox_blocked", words: "behind a VPN or proxy" },
];

/** How long before a check runs out the page takes another. */
const RENEW_BEFORE_MS = 2 * 60 * 1000;

export function LocationStatus(): JSX.Element {
  const [packet, setPacket] = useState("sandbox_inside");
  const [check, setCheck] = useState<Check | null>(null);
  const [round, setRound] = useState(0);
  const send = useAction();
  useEffect(() => {
    void send.run(async () => {
      setCheck(await must(api.player.POST("/v1/me/location-checks", { body: { packet } })));
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [round]);
  useEffect(() => {
    if (check?.result !== "inside") return;
    const wait = Math.max(new Date(check.expires_at).getTime() - Date.now() - RENEW_BEFORE_MS, 10_000);
    const timer = window.setTimeout(() => setRound((r) => r + 1), wait);
    return () => window.clearTimeout(timer);
  }, [check]);
  return (
    <div
      class={`location ${check && check.result !== "inside" ? "notice" : "hint"}`}
      role="status"
      data-testid="location"
    >
      {check === null && !send.problem && <span>Checking where you are…</span>}
      {check && check.result === "inside" && (
        <span data-testid="location-state">
          Location: in {check.jurisdiction}, checked {when(check.checked_at)}; online play is open until{" "}
          {when(check.expires_at)}.
        </span>
      )}
      {check && check.result !== "inside" && (
        <span data-testid="location-state">
          Location: {check.reason}. Online play is closed until a check places you in {check.jurisdiction}.
        </span>
      )}{" "}
      <label>
        Sandbox device:{" "}
        <select value={packet} onChange={(e) => setPacket((e.target as HTMLSelectElement).value)}>
          {PACKETS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.words}
            </option>
          ))}
        </select>
      </label>{" "}
      <button type="button" disabled={send.busy} onClick={() => setRound((r) => r + 1)}>
        Check my location again
      </button>
      <ProblemBanner problem={send.problem} />
    </div>
  );
}
