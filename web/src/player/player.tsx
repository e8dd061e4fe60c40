// The player's screens: register and log in (with an invitation to set limits), then the wallet
// (deposits through the payment provider's sandbox, cash-outs, history), the Keno wall, the
// tables, game recall, and "play responsibly": the help line, the player's standing, deposit,
// play and time limits, breaks, self-exclusion, closure and the activity statement.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { PowerballCounter } from "../shared/powerball";
import { api, dollars, must, previousLoginOf, publicApi, signIn, when } from "../shared/session";
import { EndedNotice, Field, ProblemBanner, useAction, useLoad } from "../shared/ui";
import { AreaShell } from "../shared/area";
import { IdentityPanel } from "./identity";
import { LocationStatus } from "./location";
import { WalletPanel } from "./wallet";
import { LimitsPanel } from "./protection";
import { PlayClock, RealityCheckDialog } from "./play_session";
import { BlackjackTable } from "./blackjack";
import { CrapsTable } from "./craps";
import { ILuvSuitsTable } from "./i_luv_suits";
import { KenoWall } from "./keno";
import { Recall } from "./recall";

export function PlayerEntry(): JSX.Element {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [born, setBorn] = useState("");
  const login = useAction();
  const register = useAction();
  const [registered, setRegistered] = useState<string | null>(null);
  const logIn = async () => {
    const session = await must(publicApi.POST("/v1/sessions", { body: { email: email.trim(), password } }));
    signIn("player", session);
  };
  return (
    <div class="columns">
      <form
        class="box"
        aria-labelledby="login-title"
        onSubmit={(e) => {
          e.preventDefault();
          void login.run(logIn);
        }}
      >
        <h2 id="login-title">Log in</h2>
        <EndedNotice area="player" />
        <Field id="login-email" label="Email" type="email" autoComplete="email" value={email} onInput={setEmail} />
        <Field
          id="login-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onInput={setPassword}
        />
        <button type="submit" disabled={login.busy}>
          Log in
        </button>
        <p>
          <a href="#/forgot-password">Forgot your password?</a>
        </p>
        <ProblemBanner problem={login.problem} />
      </form>
      <form
        class="box"
        aria-labelledby="register-title"
        onSubmit={(e) => {
          e.preventDefault();
          void register.run(async () => {
            const accepted = await must(
              publicApi.POST("/v1/players", { body: { email: email.trim(), password, date_of_birth: born } }),
            );
            setRegistered(accepted.message);
            inviteToSetLimits();
            await logIn();
          });
        }}
      >
        <h2 id="register-title">New here? Register</h2>
        <p class="hint">18 or older. The email and password above are used; add your date of birth.</p>
        <Field id="register-born" label="Date of birth" type="date" value={born} onInput={setBorn} />
        <button type="submit" disabled={register.busy}>
          Register and log in
        </button>
        {registered && (
          <p class="notice" role="status">
            {registered}
          </p>
        )}
        <ProblemBanner problem={register.problem} />
      </form>
    </div>
  );
}

/** A player whose address is not yet confirmed: where the link went, and a new one on request. */
function UnconfirmedAddress(props: { email: string }): JSX.Element {
  const resend = useAction();
  const [said, setSaid] = useState<string | null>(null);
  return (
    <div class="notice" role="status" data-testid="unconfirmed-address">
      <p>
        Confirm your address: we sent a link to {props.email}. It works once, within 30 minutes.{" "}
        {said ?? ""}
      </p>
      <button
        type="button"
        disabled={resend.busy}
        onClick={() =>
          void resend.run(async () => {
            const done = await must(
              publicApi.POST("/v1/email-verifications/resend", { body: { email: props.email } }),
            );
            setSaid(done.message);
          })
        }
      >
        Send a new link
      </button>
      <ProblemBanner problem={resend.problem} />
    </div>
  );
}

const PLAYER_TABS = [
  { id: "wallet", title: "Wallet" },
  { id: "keno", title: "Castle Keno" },
  { id: "powerball", title: "Powerball" },
  { id: "blackjack", title: "Blackjack" },
  { id: "i-luv-suits", title: "I Luv Suits" },
  { id: "craps", title: "Craps" },
  { id: "recall", title: "Recall" },
  { id: "limits", title: "Play responsibly" },
] as const;
type PlayerTab = (typeof PLAYER_TABS)[number]["id"];

// The tab the player was on, kept for this browser tab: logging in again comes back to it.
const TAB_KEY = "lotto.player.tab";
// Set at registration: the first screen invites the new player to set limits.
const INVITE_KEY = "lotto.player.invite";

function inviteToSetLimits(): void {
  try {
    sessionStorage.setItem(INVITE_KEY, "1");
  } catch {
    // Without storage there is no invitation; the page is one tab away.
  }
}

function invited(): boolean {
  try {
    return sessionStorage.getItem(INVITE_KEY) === "1";
  } catch {
    return false;
  }
}

function savedTab(): PlayerTab {
  try {
    const saved = sessionStorage.getItem(TAB_KEY);
    return PLAYER_TABS.find((t) => t.id === saved)?.id ?? "wallet";
  } catch {
    return "wallet";
  }
}

const GAME_TABS: Record<"blackjack" | "i_luv_suits" | "craps", { tab: PlayerTab; words: string }> = {
  blackjack: { tab: "blackjack", words: "a blackjack hand" },
  i_luv_suits: { tab: "i-luv-suits", words: "an I Luv Suits hand" },
  craps: { tab: "craps", words: "craps bets on the layout" },
};

export function PlayerScreens(): JSX.Element {
  const [tab, setTabState] = useState<PlayerTab>(savedTab);
  const setTab = (next: PlayerTab) => {
    setTabState(next);
    try {
      sessionStorage.setItem(TAB_KEY, next);
    } catch {
      // Without storage the tab is simply not remembered.
    }
  };
  const [walletRound, setWalletRound] = useState(0);
  const refreshWallet = () => setWalletRound((r) => r + 1);
  const [invitation, setInvitation] = useState(invited);
  const answerInvitation = (open: boolean) => {
    try {
      sessionStorage.removeItem(INVITE_KEY);
    } catch {
      // Nothing kept, nothing to forget.
    }
    setInvitation(false);
    if (open) setTab("limits");
  };
  const me = useLoad(() => must(api.player.GET("/v1/me")), []);
  const wallet = useLoad(() => must(api.player.GET("/v1/me/wallet")), [walletRound]);
  // What the player left in play (a logout, an idle timeout, a closed tab): shown at once, each
  // game's table opening on it.
  const inPlay = useLoad(() => must(api.player.GET("/v1/tables/in-play")), [walletRound]);
  // The tables open once it is known what waits at them (read again when money moves).
  const [found, setFound] = useState(false);
  if ((inPlay.value || inPlay.problem) && !found) setFound(true);
  const waiting = inPlay.value
    ? (Object.keys(GAME_TABS) as (keyof typeof GAME_TABS)[]).filter((game) => inPlay.value?.[game].length)
    : [];
  return (
    <AreaShell
      area="player"
      who={
        <p>
          {me.value?.player?.email ?? "…"} · balance{" "}
          <strong data-testid="balance">{wallet.value ? dollars(wallet.value.balance.available) : "…"}</strong>
          <br />
          <span class="hint" data-testid="last-login">
            {previousLoginOf("player") ? `Last login ${when(previousLoginOf("player"))}` : "Your first login: welcome"}
          </span>
        </p>
      }
      beside={<PlayClock round={walletRound} />}
      leave="Log out"
      above={
        <>
          <RealityCheckDialog onAnswered={refreshWallet} />
          <LocationStatus />
          {me.value?.player && me.value.player.email_verified_at === null && (
            <UnconfirmedAddress email={me.value.player.email} />
          )}
          {invitation && (
            <div class="notice" role="status" data-testid="limits-invitation">
              <p>
                Welcome. Would you like to set limits on your deposits, losses, stakes or time played before you start? You
                can change them at any time under Play responsibly.
              </p>
              <div class="row">
                <button type="button" onClick={() => answerInvitation(true)}>
                  Set my limits
                </button>
                <button type="button" onClick={() => answerInvitation(false)}>
                  Not now
                </button>
              </div>
            </div>
          )}
          {waiting.length > 0 && (
            <div class="notice" role="status" data-testid="in-play">
              <p>You have play in progress, kept as you left it:</p>
              <ul>
                {waiting.map((game) => (
                  <li key={game}>
                    <button type="button" onClick={() => setTab(GAME_TABS[game].tab)}>
                      Go back to {GAME_TABS[game].words}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      }
      label="Player"
      tabs={PLAYER_TABS}
      current={tab}
      onSelect={setTab}
    >
      {tab === "wallet" && (
        <>
          <IdentityPanel onVerified={refreshWallet} />
          <WalletPanel wallet={wallet.value} onChange={refreshWallet} />
        </>
      )}
      {tab === "keno" && <KenoWall onMoney={refreshWallet} />}
      {tab === "powerball" && <PowerballCounter onMoney={refreshWallet} />}
      {tab === "blackjack" && found && <BlackjackTable onMoney={refreshWallet} resume={inPlay.value?.blackjack[0]} />}
      {tab === "i-luv-suits" && found && (
        <ILuvSuitsTable onMoney={refreshWallet} resume={inPlay.value?.i_luv_suits[0]} />
      )}
      {tab === "craps" && found && <CrapsTable onMoney={refreshWallet} resume={inPlay.value?.craps[0]} />}
      {tab === "recall" && <Recall />}
      {tab === "limits" && <LimitsPanel />}
    </AreaShell>
  );
}
