// The game session as the player sees it on every screen: the clock since its first stake and
// the reality check's dialog when it is due.
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, dollars, must, REALITY_CHECK_DUE, type Schemas, signOut } from "../shared/session";
import { ProblemBanner, useAction, useLoad } from "../shared/ui";

/** Minutes played, in words. */
function played(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The game session's clock, on every screen: time played since its first stake (the player's
 * game session, which every login of theirs joins), what it staked and won (read again every 30
 * seconds and whenever money moves). A reality check already due (found on a reload, or from
 * another device) opens its dialog at once, before any stake. */
export function PlayClock(props: { round: number }): JSX.Element {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 30_000);
    return () => clearInterval(timer);
  }, []);
  const session = useLoad(() => must(api.player.GET("/v1/me/play-session")), [props.round, tick]);
  const s = session.value;
  useEffect(() => {
    const due = s?.next_reality_check_at;
    if (due && Date.parse(due) <= Date.now()) {
      window.dispatchEvent(new CustomEvent(REALITY_CHECK_DUE, { detail: s }));
    }
  }, [s]);
  return (
    <p data-testid="play-clock" aria-live="off">
      {!s?.started_at
        ? "Not playing yet"
        : `Playing ${played(s.played_seconds)} · staked ${dollars(s.staked)} · won ${dollars(s.won)}`}
    </p>
  );
}

/** The reality check: when a stake is answered `reality_check_due`, a modal dialog with the
 * session's time and money that only the player's choice closes (Escape does not). */
export function RealityCheckDialog(props: { onAnswered: () => void }): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const [figures, setFigures] = useState<Record<string, unknown> | null>(null);
  const answer = useAction();
  useEffect(() => {
    const due = (e: Event) => setFigures((e as CustomEvent<Record<string, unknown>>).detail ?? {});
    window.addEventListener(REALITY_CHECK_DUE, due);
    return () => window.removeEventListener(REALITY_CHECK_DUE, due);
  }, []);
  useEffect(() => {
    const d = dialog.current;
    if (figures && d && !d.open) d.showModal();
  }, [figures]);
  const money = (key: string) => dollars(typeof figures?.[key] === "number" ? (figures[key] as number) : 0);
  const seconds = typeof figures?.["played_seconds"] === "number" ? (figures["played_seconds"] as number) : 0;
  const decide = (decision: Schemas["RealityCheckDecision"]) =>
    void answer.run(async () => {
      await must(api.player.POST("/v1/me/reality-check", { body: { decision } }));
      dialog.current?.close();
      setFigures(null);
      if (decision === "stop") signOut("player");
      else props.onAnswered();
    });
  return (
    <dialog
      ref={dialog}
      aria-labelledby="reality-check-title"
      data-testid="reality-check"
      onCancel={(e) => e.preventDefault()}
    >
      <h2 id="reality-check-title">Time for a reality check</h2>
      <p>
        You have played for {played(seconds)}. This session you staked {money("staked")} and won {money("won")}: net{" "}
        {money("net")}.
      </p>
      <div class="row">
        <button type="button" onClick={() => decide("continue")} disabled={answer.busy}>
          Keep playing
        </button>
        <button type="button" class="danger" onClick={() => decide("stop")} disabled={answer.busy}>
          Stop playing
        </button>
      </div>
      <ProblemBanner problem={answer.problem} />
    </dialog>
  );
}
