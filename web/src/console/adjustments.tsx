// The console's balance adjustments (issue 49): an operator proposes a goodwill credit or a
// correction from a player's file, saying why; nothing moves until another operator approves it
// in the queue (maker-checker). The proposer may withdraw their own; auditors read.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, centsOf, dollars, must, newKey, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, useAction, useLoad } from "../shared/ui";

type Adjustment = Schemas["AdjustmentView"];

/** The form in a player's file: a proposal, kept once however often it is sent. */
export function ProposeAdjustment(props: { player: string }): JSX.Element {
  const [direction, setDirection] = useState<"credit" | "debit">("credit");
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [key, setKey] = useState(newKey);
  const [made, setMade] = useState<Adjustment | null>(null);
  const propose = useAction();
  const cents = centsOf(amount);
  return (
    <form
      class="box"
      aria-label="Propose an adjustment"
      data-testid="propose-adjustment"
      onSubmit={(e) => {
        e.preventDefault();
        if (cents === null) return;
        void propose.run(async () => {
          const adjustment = await must(
            api.staff.POST("/v1/players/{id}/adjustments", {
              params: { path: { id: props.player }, header: { "Idempotency-Key": key } },
              body: { direction, amount_cents: cents, reason },
            }),
          );
          setMade(adjustment);
          setKey(newKey());
          setAmount("");
          setReason("");
        });
      }}
    >
      <h4>Adjust the balance</h4>
      <p class="hint">A second operator approves it before any money moves.</p>
      <label class="field" for="adjust-direction">
        <span>Which way</span>
        <select
          id="adjust-direction"
          value={direction}
          onChange={(e) => setDirection(e.currentTarget.value === "debit" ? "debit" : "credit")}
        >
          <option value="credit">Credit the wallet (goodwill)</option>
          <option value="debit">Debit the wallet (a correction)</option>
        </select>
      </label>
      <Field id="adjust-amount" label="Amount in dollars" inputMode="decimal" value={amount} onInput={setAmount} />
      <Field id="adjust-reason" label="Why (recorded and shown to the approver)" value={reason} onInput={setReason} />
      <button type="submit" disabled={propose.busy || cents === null || reason.trim() === ""}>
        Propose
      </button>
      <ProblemBanner staff problem={propose.problem} />
      {made && (
        <p role="status" data-testid="adjustment-proposed">
          Proposed: {made.direction} of {dollars(made.amount_cents)}, waiting for a second operator.
        </p>
      )}
    </form>
  );
}

/** The queue: every proposal waiting for a second operator, oldest first. */
export function AdjustmentQueue(): JSX.Element {
  const queue = useLoad(
    () => must(api.staff.GET("/v1/adjustments", { params: { query: { state: "proposed" } } })),
    [],
  );
  return (
    <section class="box" aria-labelledby="adjustments-title" data-testid="adjustment-queue">
      <h3 id="adjustments-title">Adjustments waiting for a second operator</h3>
      <button type="button" onClick={queue.reload}>
        Refresh
      </button>
      <ProblemBanner staff problem={queue.problem} />
      {queue.value?.items.length === 0 && <p>None waiting.</p>}
      {(queue.value?.items ?? []).map((a) => (
        <Waiting key={a.id} adjustment={a} onDecided={queue.reload} />
      ))}
    </section>
  );
}

function Waiting(props: { adjustment: Adjustment; onDecided: () => void }): JSX.Element {
  const a = props.adjustment;
  const [why, setWhy] = useState("");
  const [done, setDone] = useState<Adjustment | null>(null);
  const decide = useAction();
  const approve = () =>
    void decide.run(async () => {
      setDone(await must(api.staff.POST("/v1/adjustments/{id}/approval", { params: { path: { id: a.id } } })));
    });
  const reject = () =>
    void decide.run(async () => {
      setDone(
        await must(
          api.staff.POST("/v1/adjustments/{id}/rejection", { params: { path: { id: a.id } }, body: { reason: why } }),
        ),
      );
    });
  return (
    <article class="box" data-adjustment={a.id}>
      <p>
        <strong>
          {a.direction === "credit" ? "Credit" : "Debit"} {dollars(a.amount_cents)}
        </strong>{" "}
        {a.direction === "credit" ? "to" : "from"} {a.player_email}, proposed by {a.proposed_by_name ?? a.proposed_by}{" "}
        {when(a.proposed_at)}
        <br />
        Why: {a.reason}
      </p>
      {done ? (
        <p role="status" data-testid="adjustment-decided">
          {done.state === "approved" ? "Approved: the money has moved." : `Rejected: ${done.decision_reason ?? ""}`}
          <button type="button" class="link" onClick={props.onDecided}>
            Next
          </button>
        </p>
      ) : (
        <>
          <div class="row">
            <button type="button" disabled={decide.busy} onClick={approve}>
              Approve
            </button>
          </div>
          <Field id={`reject-${a.id}`} label="Why reject it" value={why} onInput={setWhy} />
          <button type="button" disabled={decide.busy || why.trim() === ""} onClick={reject}>
            Reject
          </button>
        </>
      )}
      <ProblemBanner staff problem={decide.problem} />
    </article>
  );
}
