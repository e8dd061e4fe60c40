// The web client's entry, under the brand (Sunflower Lotto: a name for the demonstration operator,
// set in one place here and in the stylesheet's colours): three areas (play, the retailer's till, the operator's console) chosen
// by the address's hash, each behind its own login.
import type { JSX } from "preact";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ConsoleScreens } from "./console/console";
import { StaffEntry } from "./console/second_factor";
import { linkPageOf } from "./player/links";
import { PlayerEntry, PlayerScreens } from "./player/player";
import { type Area, onSessionChange, tokenOf } from "./shared/session";
import { TillEntry, TillScreens } from "./till/till";
import "./style.css";

const AREAS: { area: Area; hash: string; title: string }[] = [
  { area: "player", hash: "#/play", title: "Play" },
  { area: "till", hash: "#/till", title: "Retailer terminal" },
  { area: "staff", hash: "#/console", title: "Operator console" },
];

function areaOf(hash: string): Area {
  return AREAS.find((a) => hash.startsWith(a.hash))?.area ?? "player";
}

function App(): JSX.Element {
  const [hash, setHash] = useState(location.hash);
  const [, setSessions] = useState(0);
  useEffect(() => {
    const onHash = () => setHash(location.hash);
    window.addEventListener("hashchange", onHash);
    const stop = onSessionChange(() => setSessions((n) => n + 1));
    return () => {
      window.removeEventListener("hashchange", onHash);
      stop();
    };
  }, []);
  const area = areaOf(hash);
  const signedIn = tokenOf(area) !== null;
  useEffect(() => {
    document.title = `${AREAS.find((a) => a.area === area)?.title ?? ""} · Sunflower Lotto`;
  }, [area]);
  return (
    <>
      <header>
        <p class="brand">
          <span class="brand-mark" aria-hidden="true" />
          Sunflower Lotto
        </p>
        <nav aria-label="Areas">
          {AREAS.map((a) => (
            <a key={a.area} href={a.hash} aria-current={a.area === area ? "page" : undefined}>
              {a.title}
            </a>
          ))}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <h1 class="visually-hidden">{AREAS.find((a) => a.area === area)?.title}</h1>
        {area === "player" && (linkPageOf(hash) ?? (signedIn ? <PlayerScreens /> : <PlayerEntry />))}
        {area === "till" && (signedIn ? <TillScreens /> : <TillEntry />)}
        {area === "staff" && (signedIn ? <ConsoleScreens /> : <StaffEntry />)}
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
