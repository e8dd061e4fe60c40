// The player's identity check (issue 49): the player file sent to the identity provider, the
// provider's page where the check is finished, and where it stands, in words. Read again every
// 3 s while the provider decides.
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, must, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, useAction, useLoad } from "../shared/ui";

type Identity = Schemas["IdentityView"];

const STATES: Record<Identity["state"], string> = {
  pending: "waiting for you to finish the check",
  verified: "verified",
  refused: "not verified",
  review: "being checked by our staff",
  resubmission_requested: "needs your details again",
  unverified: "expired before it was finished",
};

/** The file, or `null` when the player has not submitted one (their profile says which, so
 * the page never asks for a file that is not there). */
async function fileOf(): Promise<Identity | null> {
  const me = await must(api.player.GET("/v1/me"));
  if (me.player?.identity_state == null) return null;
  return must(api.player.GET("/v1/me/identity"));
}

export function IdentityPanel(props: { onVerified: () => void }): JSX.Element {
  const [round, setRound] = useState(0);
  const file = useLoad(fileOf, [round]);
  const state = file.value?.state;
  useEffect(() => {
    if (state !== "pending" && state !== "review") return;
    const timer = window.setTimeout(() => setRound((r) => r + 1), 3000);
    return () => window.clearTimeout(timer);
  }, [state, round]);
  useEffect(() => {
    if (state === "verified") props.onVerified();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state]);
  const canSubmit = file.value === null || state === "resubmission_requested" || state === "unverified";
  return (
    <section class="box" aria-labelledby="identity-title" data-testid="identity">
      <h3 id="identity-title">Your identity</h3>
      <ProblemBanner problem={file.problem} />
      {file.value && (
        <p role="status" data-testid="identity-state">
          Identity check: {STATES[file.value.state]}. {file.value.next}
          {file.value.decided_at ? ` (decided ${when(file.value.decided_at)})` : ""}
        </p>
      )}
      {file.value?.verification_url && (
        <p>
          <a href={file.value.verification_url} data-testid="identity-link">
            Open the verification page
          </a>
        </p>
      )}
      {file.value === null && (
        <p class="hint">
          The law asks us to verify who you are before any deposit or play: your legal name, date of birth (given at
          registration) and home address.
        </p>
      )}
      {canSubmit && file.value !== undefined && <IdentityForm onSent={() => setRound((r) => r + 1)} />}
    </section>
  );
}

function IdentityForm(props: { onSent: () => void }): JSX.Element {
  const [name, setName] = useState("");
  const [line1, setLine1] = useState("");
  const [line2, setLine2] = useState("");
  const [city, setCity] = useState("");
  const [region, setRegion] = useState("KS");
  const [postal, setPostal] = useState("");
  const [phone, setPhone] = useState("");
  const [ssn, setSsn] = useState("");
  const send = useAction();
  return (
    <form
      aria-label="Verify your identity"
      onSubmit={(e) => {
        e.preventDefault();
        void send.run(async () => {
          await must(
            api.player.PUT("/v1/me/identity", {
              body: {
                legal_name: name,
                phone,
                ssn_last4: ssn.trim() === "" ? null : ssn.trim(),
                address: { line1, line2: line2.trim() === "" ? null : line2, city, region, postal_code: postal },
              },
            }),
          );
          props.onSent();
        });
      }}
    >
      <Field id="id-name" label="Legal name" autoComplete="name" value={name} onInput={setName} />
      <Field id="id-line1" label="Home address (no PO box)" autoComplete="address-line1" value={line1} onInput={setLine1} />
      <Field id="id-line2" label="Apartment, suite (optional)" autoComplete="address-line2" value={line2} onInput={setLine2} />
      <div class="row">
        <Field id="id-city" label="City" autoComplete="address-level2" value={city} onInput={setCity} />
        <Field id="id-region" label="State" autoComplete="address-level1" value={region} onInput={setRegion} />
        <Field id="id-postal" label="ZIP code" autoComplete="postal-code" value={postal} onInput={setPostal} />
      </div>
      <Field id="id-phone" label="Phone" type="tel" autoComplete="tel" value={phone} onInput={setPhone} />
      <Field id="id-ssn" label="Last four of your SSN (optional)" inputMode="numeric" value={ssn} onInput={setSsn} />
      <button type="submit" disabled={send.busy}>
        Verify my identity
      </button>
      <ProblemBanner problem={send.problem} />
    </form>
  );
}
