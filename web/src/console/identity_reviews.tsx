// The console's identity reviews (issue 49): the player files the identity provider sent to a
// person, oldest first; an operator verifies, refuses or asks for the details again, and says
// why (recorded as a manual decision, with who and when). Auditors read.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, must, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, useAction, useLoad } from "../shared/ui";

type Identity = Schemas["IdentityView"];

export function IdentityReviews(): JSX.Element {
  const queue = useLoad(() => must(api.staff.GET("/v1/identity/reviews")), []);
  return (
    <section class="box" aria-labelledby="reviews-title" data-testid="identity-reviews">
      <h3 id="reviews-title">Identity checks waiting for a person</h3>
      <ProblemBanner staff problem={queue.problem} />
      {queue.value?.length === 0 && <p>None waiting.</p>}
      {(queue.value ?? []).map((file) => (
        <Review key={file.player_id} file={file} onDecided={queue.reload} />
      ))}
    </section>
  );
}

function Review(props: { file: Identity; onDecided: () => void }): JSX.Element {
  const [reason, setReason] = useState("");
  const decide = useAction();
  const f = props.file;
  const id = `reason-${f.player_id}`;
  const choose = (decision: "verified" | "refused" | "resubmission_requested") =>
    void decide.run(async () => {
      await must(
        api.staff.POST("/v1/players/{id}/identity/decision", {
          params: { path: { id: f.player_id } },
          body: { decision, reason },
        }),
      );
      props.onDecided();
    });
  return (
    <article class="box" data-player={f.player_id}>
      <p>
        <strong>{f.legal_name}</strong>, {f.address.line1}
        {f.address.line2 ? `, ${f.address.line2}` : ""}, {f.address.city} {f.address.region} {f.address.postal_code}
        <br />
        Phone {f.phone}; SSN last four {f.ssn_last4_given ? "given" : "not given"}; submitted {when(f.submitted_at)}
        {f.reason ? `; the provider says: ${f.reason}` : ""}
      </p>
      <Field id={id} label="Why (recorded with your decision)" value={reason} onInput={setReason} />
      <div class="row">
        <button type="button" disabled={decide.busy || reason.trim() === ""} onClick={() => choose("verified")}>
          Verify
        </button>
        <button type="button" disabled={decide.busy || reason.trim() === ""} onClick={() => choose("refused")}>
          Refuse
        </button>
        <button
          type="button"
          disabled={decide.busy || reason.trim() === ""}
          onClick={() => choose("resubmission_requested")}
        >
          Ask for the details again
        </button>
      </div>
      <ProblemBanner staff problem={decide.problem} />
    </article>
  );
}
