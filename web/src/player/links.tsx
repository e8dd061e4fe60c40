// The pages a mailed link opens (an address confirmed, a new password chosen), and the page
// that asks for a reset link. Each answers in words; a link that is late, used or unknown says
// so and offers a new one.
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, must, publicApi, tokenOf, when } from "../shared/session";
import { Field, ProblemBanner, useAction } from "../shared/ui";

/** The link pages, by the address's hash; `null` for any other hash. */
export function linkPageOf(hash: string): JSX.Element | null {
  if (hash.startsWith("#/verify-email")) return <VerifyEmail token={tokenIn(hash)} />;
  if (hash.startsWith("#/reset-password")) return <ResetPassword token={tokenIn(hash)} />;
  if (hash.startsWith("#/forgot-password")) return <ForgotPassword />;
  return null;
}

function tokenIn(hash: string): string {
  const query = hash.split("?")[1] ?? "";
  return new URLSearchParams(query).get("token") ?? "";
}

function VerifyEmail(props: { token: string }): JSX.Element {
  const [verified, setVerified] = useState<{ email: string; at: string } | null>(null);
  const confirm = useAction();
  useEffect(() => {
    void confirm.run(async () => {
      // Opened where a player is logged in, the link is checked against that player.
      const client = tokenOf("player") !== null ? api.player : publicApi;
      const done = await must(client.POST("/v1/email-verifications", { body: { token: props.token } }));
      setVerified({ email: done.email, at: done.email_verified_at });
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.token]);
  return (
    <section class="box narrow" aria-labelledby="verify-title" data-testid="verify-email">
      <h2 id="verify-title">Confirm your email address</h2>
      {confirm.busy && <p role="status">Confirming…</p>}
      {verified && (
        <p class="notice" role="status">
          {verified.email} is confirmed (since {when(verified.at)}). <a href="#/play">Go to your account</a>.
        </p>
      )}
      <ProblemBanner problem={confirm.problem} />
      {confirm.problem !== null && <ResendForm />}
    </section>
  );
}

function ResendForm(): JSX.Element {
  const [email, setEmail] = useState("");
  const [said, setSaid] = useState<string | null>(null);
  const resend = useAction();
  return (
    <form
      aria-label="A new confirmation link"
      onSubmit={(e) => {
        e.preventDefault();
        void resend.run(async () => {
          const done = await must(publicApi.POST("/v1/email-verifications/resend", { body: { email: email.trim() } }));
          setSaid(done.message);
        });
      }}
    >
      <Field id="resend-email" label="Email" type="email" autoComplete="email" value={email} onInput={setEmail} />
      <button type="submit" disabled={resend.busy}>
        Send a new link
      </button>
      {said && (
        <p class="notice" role="status">
          {said}
        </p>
      )}
      <ProblemBanner problem={resend.problem} />
    </form>
  );
}

function ForgotPassword(): JSX.Element {
  const [email, setEmail] = useState("");
  const [said, setSaid] = useState<string | null>(null);
  const ask = useAction();
  return (
    <form
      class="box narrow"
      aria-labelledby="forgot-title"
      onSubmit={(e) => {
        e.preventDefault();
        void ask.run(async () => {
          const done = await must(publicApi.POST("/v1/password-resets", { body: { email: email.trim() } }));
          setSaid(done.message);
        });
      }}
    >
      <h2 id="forgot-title">Forgot your password?</h2>
      <p class="hint">We send a link to your address. It works once, within 30 minutes.</p>
      <Field id="forgot-email" label="Email" type="email" autoComplete="email" value={email} onInput={setEmail} />
      <button type="submit" disabled={ask.busy}>
        Send me a link
      </button>
      {said && (
        <p class="notice" role="status" data-testid="forgot-said">
          {said}
        </p>
      )}
      <ProblemBanner problem={ask.problem} />
    </form>
  );
}

function ResetPassword(props: { token: string }): JSX.Element {
  const [password, setPassword] = useState("");
  const [done, setDone] = useState(false);
  const reset = useAction();
  return (
    <form
      class="box narrow"
      aria-labelledby="reset-title"
      onSubmit={(e) => {
        e.preventDefault();
        void reset.run(async () => {
          await must(publicApi.POST("/v1/password-resets/complete", { body: { token: props.token, password } }));
          setDone(true);
        });
      }}
    >
      <h2 id="reset-title">Choose a new password</h2>
      <Field
        id="reset-password"
        label="New password"
        type="password"
        autoComplete="new-password"
        value={password}
        onInput={setPassword}
      />
      <button type="submit" disabled={reset.busy || done}>
        Set the new password
      </button>
      {done && (
        <p class="notice" role="status" data-testid="reset-said">
          Your password is changed and every device was logged out. <a href="#/play">Log in</a> with the new one.
        </p>
      )}
      <ProblemBanner problem={reset.problem} />
    </form>
  );
}
