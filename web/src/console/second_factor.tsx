// Staff log in with a second factor (issue 49): the password, then the six digits an
// authenticator app shows (or a recovery code). At the first login the console enrols the app:
// the secret is shown once, as a QR code to scan and as text to type; a code from the app
// confirms it, and the ten recovery codes are shown then, once, to be kept apart from the device.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { must, Problem, publicApi, type Schemas, signIn, when } from "../shared/session";
import { EndedNotice, Field, ProblemBanner, useAction } from "../shared/ui";

type Enrolment = Schemas["EnrolmentView"];
type Confirmed = Schemas["EnrolmentConfirmed"];

/** The second factor as typed: six digits are a code, anything else a recovery code. */
function secondFactor(typed: string): { code?: string; recovery_code?: string } {
  const trimmed = typed.trim();
  if (trimmed === "") return {};
  return /^[0-9]{6}$/.test(trimmed) ? { code: trimmed } : { recovery_code: trimmed };
}

export function StaffEntry(): JSX.Element {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [enrolling, setEnrolling] = useState(false);
  const login = useAction();
  if (enrolling) {
    return <EnrolSecondFactor username={username} password={password} onCancel={() => setEnrolling(false)} />;
  }
  return (
    <form
      class="box narrow"
      aria-labelledby="staff-login-title"
      onSubmit={(e) => {
        e.preventDefault();
        void login.run(async () => {
          try {
            const body = { username, password, ...secondFactor(code) };
            signIn("staff", await must(publicApi.POST("/v1/sessions", { body })));
          } catch (error) {
            if (error instanceof Problem && error.code === "second_factor_enrolment_required") {
              setEnrolling(true);
              return;
            }
            throw error;
          }
        });
      }}
    >
      <h2 id="staff-login-title">Operator console</h2>
      <EndedNotice area="staff" />
      <Field id="staff-username" label="Username" autoComplete="username" value={username} onInput={setUsername} />
      <Field
        id="staff-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        value={password}
        onInput={setPassword}
      />
      <Field
        id="staff-code"
        label="Code from your authenticator app (or a recovery code)"
        autoComplete="one-time-code"
        inputMode="numeric"
        value={code}
        onInput={setCode}
      />
      <button type="submit" disabled={login.busy}>
        Log in
      </button>
      <ProblemBanner staff problem={login.problem} />
    </form>
  );
}

/** The first login's enrolment: the secret shown once, confirmed with a code from the app. */
function EnrolSecondFactor(props: { username: string; password: string; onCancel: () => void }): JSX.Element {
  const [shown, setShown] = useState<Enrolment | null>(null);
  const [confirmed, setConfirmed] = useState<Confirmed | null>(null);
  const [code, setCode] = useState("");
  const begin = useAction();
  const confirm = useAction();
  const credentials = { username: props.username, password: props.password };
  if (confirmed) {
    return (
      <section class="box narrow" aria-labelledby="recovery-title" data-testid="recovery-codes">
        <h2 id="recovery-title">Your recovery codes</h2>
        <p>
          Each of these logs you in once in place of a code, if your device is lost. They are shown only now: print them
          or write them down, and keep them apart from the device.
        </p>
        <ol class="recovery">
          {confirmed.recovery_codes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ol>
        <button type="button" onClick={() => signIn("staff", confirmed.session)}>
          I have kept them: open the console
        </button>
      </section>
    );
  }
  return (
    <section class="box narrow" aria-labelledby="enrol-title" data-testid="enrolment">
      <h2 id="enrol-title">Set up your second factor</h2>
      <p>
        Staff log in with a password and a code from an authenticator app on a device of their own. This is your first
        login since: set up the app now.
      </p>
      {!shown && (
        <>
          <button
            type="button"
            disabled={begin.busy}
            onClick={() =>
              void begin.run(async () =>
                setShown(await must(publicApi.POST("/v1/staff/second-factor/enrolment", { body: credentials }))),
              )
            }
          >
            Show my QR code
          </button>{" "}
          <button type="button" class="secondary" onClick={props.onCancel}>
            Back
          </button>
          <ProblemBanner staff problem={begin.problem} />
        </>
      )}
      {shown && (
        <form
          aria-label="Confirm the app"
          onSubmit={(e) => {
            e.preventDefault();
            void confirm.run(async () =>
              setConfirmed(
                await must(
                  publicApi.POST("/v1/staff/second-factor/enrolment/confirm", { body: { ...credentials, code: code.trim() } }),
                ),
              ),
            );
          }}
        >
          <p>Scan this with the app (it is shown only once; confirm before {when(shown.confirm_before)}):</p>
          <img
            class="qr"
            data-testid="enrolment-qr"
            alt="QR code of your second factor's secret"
            src={`data:image/svg+xml;utf8,${encodeURIComponent(shown.qr_svg)}`}
            width={200}
            height={200}
          />
          <p>
            Or type this secret into the app: <code data-testid="enrolment-secret">{shown.secret}</code>
          </p>
          <Field
            id="enrol-code"
            label="The six digits the app shows"
            autoComplete="one-time-code"
            inputMode="numeric"
            value={code}
            onInput={setCode}
          />
          <button type="submit" disabled={confirm.busy}>
            Confirm
          </button>
          <ProblemBanner staff problem={confirm.problem} />
        </form>
      )}
    </section>
  );
}
