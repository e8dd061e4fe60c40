// Grand prizes paid as annuities (issue 50): each winner's 30 payments, the first paid with the
// claim and each later one by the service on its date (the claim's anniversary), with what is paid,
// what is owed and each year's W-2G record (the amount, the tax withheld, the payment net of it).
import type { JSX } from "preact";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { ProblemBanner, Scroll, useLoad } from "../shared/ui";

export function Annuities(props: { reload: number }): JSX.Element {
  const annuities = useLoad(() => must(api.staff.GET("/v1/powerball/annuities", { params: { query: { limit: 100 } } })), [
    props.reload,
  ]);
  const list = annuities.value ?? [];
  return (
    <section class="box" aria-labelledby="annuities-title" data-testid="annuities">
      <h3 id="annuities-title">Annuities</h3>
      <p class="hint">
        A Powerball grand prize taken as an annuity is 30 payments, each 5% larger than the one before; the first is
        paid with the claim and each later one on the claim's anniversary, from the annuity account.
      </p>
      <ProblemBanner staff problem={annuities.problem} />
      {annuities.value && list.length === 0 ? <p class="hint">None.</p> : list.map((a) => <Schedule key={a.claim_id} annuity={a} />)}
    </section>
  );
}

function Schedule(props: { annuity: Schemas["PowerballAnnuityView"] }): JSX.Element {
  const a = props.annuity;
  const paid = a.payments.filter((p) => p.paid_at).length;
  return (
    <details class="annuity" data-claim={a.claim_id}>
      <summary>
        Ticket {a.serial} (drawing {a.draw_date}), {a.claimant_name ?? "no name"}: {dollars(a.total_cents)}; {paid} of{" "}
        {a.payments.length} paid ({dollars(a.paid_cents)}), {dollars(a.owed_cents)} owed
        {a.next_due_on ? `, next on ${a.next_due_on}` : ""}
      </summary>
      <Scroll label={`The annuity of ticket ${a.serial}`}>
        <table class="data" data-testid="annuity-payments">
          <caption class="visually-hidden">Payments of the annuity of ticket {a.serial}</caption>
          <thead>
            <tr>
              <th scope="col">Payment</th>
              <th scope="col">Due</th>
              <th scope="col">Tax year</th>
              <th scope="col">Amount</th>
              <th scope="col">Withheld</th>
              <th scope="col">To the winner</th>
              <th scope="col">W-2G</th>
              <th scope="col">Paid (central time)</th>
            </tr>
          </thead>
          <tbody>
            {a.payments.map((p) => (
              <tr key={p.number}>
                <th scope="row">{p.number}</th>
                <td>{p.due_on}</td>
                <td>{p.tax_year}</td>
                <td>{dollars(p.amount_cents)}</td>
                <td>{dollars(p.withheld_cents)}</td>
                <td>{dollars(p.net_cents)}</td>
                <td>{p.w2g ? "Yes" : "No"}</td>
                <td>{p.paid_at ? when(p.paid_at) : "owed"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </details>
  );
}
