// The lottery office: prizes paid to claimants in person (an instant ticket by its barcode and
// VIRN, a Powerball ticket by its serial), each with the W-2G record and the withholding the rules
// make, and the office's records of both games, newest first (the W-2G records alone on asking),
// and the Powerball annuities' schedules.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { Field, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";
import { Annuities } from "./annuities";

export function OfficeDesk(): JSX.Element {
  const [paid, setPaid] = useState(0);
  const onPaid = () => setPaid((n) => n + 1);
  return (
    <div>
      <h2>Lottery office</h2>
      <p class="hint">
        Prizes over a retailer's limit, and any prize a claimant brings in, are paid here. A W-2G is made for a
        prize of $600 or more that is at least 300 times the ticket's price (the claimant's taxpayer number is then
        required); tax is withheld from a prize over $5,000.
      </p>
      <InstantOfficeClaim onPaid={onPaid} />
      <PowerballOfficeClaim onPaid={onPaid} />
      <OfficeRecords reload={paid} />
      <Annuities reload={paid} />
    </div>
  );
}

/** An instant ticket paid at the office: scanned or typed with its VIRN, the claimant recorded. */
function InstantOfficeClaim(props: { onPaid: () => void }): JSX.Element {
  const [barcode, setBarcode] = useState("");
  const [virn, setVirn] = useState("");
  const [name, setName] = useState("");
  const [address, setAddress] = useState("");
  const [tin, setTin] = useState("");
  const [paid, setPaid] = useState<Schemas["OfficeClaimView"] | null>(null);
  const claim = useAction();
  return (
    <section class="box" aria-labelledby="instant-office-title">
      <h3 id="instant-office-title">Pay an instant ticket</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void claim.run(async () => {
            setPaid(null);
            setPaid(
              await must(
                api.staff.POST("/v1/instant/office-claims", {
                  body: {
                    barcode: barcode.trim(),
                    virn: virn.trim(),
                    claimant: { name, address: address.trim() || null, tin_last4: tin.trim() || null },
                  },
                }),
              ),
            );
            props.onPaid();
          });
        }}
      >
        <div class="row">
          <Field id="office-barcode" label="Barcode (scan or type)" inputMode="numeric" value={barcode} onInput={setBarcode} />
          <Field id="office-virn" label="VIRN (12 digits)" inputMode="numeric" value={virn} onInput={setVirn} />
          <Field id="office-name" label="Claimant's name" value={name} onInput={setName} />
          <Field id="office-address" label="Claimant's address" value={address} onInput={setAddress} />
          <Field
            id="office-tin"
            label="Taxpayer number, last four (for a W-2G)"
            inputMode="numeric"
            value={tin}
            onInput={setTin}
          />
        </div>
        <button type="submit" disabled={claim.busy || barcode.trim() === "" || virn.trim() === "" || name.trim() === ""}>
          Pay the ticket
        </button>
      </form>
      <ProblemBanner staff problem={claim.problem} />
      {paid && (
        <dl class="facts" data-testid="office-paid">
          <dt>Prize</dt>
          <dd>
            {dollars(paid.prize_cents)} on ticket {paid.barcode}
          </dd>
          <dt>Withheld</dt>
          <dd>{dollars(paid.withheld_cents)}</dd>
          <dt>To the claimant</dt>
          <dd>{dollars(paid.net_cents)}</dd>
          <dt>W-2G</dt>
          <dd>{paid.w2g ? `recorded for ${paid.claimant_name}, TIN ending ${paid.tin_last4 ?? ""}` : "not required"}</dd>
        </dl>
      )}
    </section>
  );
}

/** One line of the office's records, whichever game it paid. */
type Paid = {
  id: string;
  at: string;
  game: string;
  ticket: string;
  paid: number;
  withheld: number;
  net: number;
  w2g: boolean;
  claimant: string;
  tin: string;
  by: string;
};

function instantLine(c: Schemas["OfficeClaimView"]): Paid {
  return {
    id: c.id,
    at: c.paid_at,
    game: "Instant",
    ticket: c.barcode,
    paid: c.prize_cents,
    withheld: c.withheld_cents,
    net: c.net_cents,
    w2g: c.w2g,
    claimant: c.claimant_name,
    tin: c.tin_last4 ?? "",
    by: c.paid_by,
  };
}

function powerballLine(c: Schemas["PowerballClaimView"]): Paid {
  return {
    id: c.id,
    at: c.created_at,
    game: `Powerball ${c.draw_date}`,
    ticket: c.serial,
    paid: c.paid_cents,
    withheld: c.withheld_cents,
    net: c.net_cents,
    w2g: c.w2g,
    claimant: c.claimant_name ?? "",
    tin: c.tin_last4 ?? "",
    by: c.paid_by,
  };
}

/** Prizes paid at the office, both games, newest first: the latest 100 of each. */
function OfficeRecords(props: { reload: number }): JSX.Element {
  const [w2gOnly, setW2gOnly] = useState(false);
  const records = useLoad(async () => {
    const query = { w2g: w2gOnly ? true : undefined, limit: 100 };
    const [instant, powerball] = await Promise.all([
      must(api.staff.GET("/v1/instant/office-claims", { params: { query } })),
      must(api.staff.GET("/v1/powerball/office-claims", { params: { query } })),
    ]);
    return [...instant.map(instantLine), ...powerball.map(powerballLine)].sort((a, b) => b.at.localeCompare(a.at));
  }, [w2gOnly, props.reload]);
  const lines = records.value ?? [];
  return (
    <section class="box" aria-labelledby="office-records-title">
      <h3 id="office-records-title">Prizes paid at the office</h3>
      <label class="check" for="office-w2g-only">
        <input
          id="office-w2g-only"
          type="checkbox"
          checked={w2gOnly}
          onChange={(e) => setW2gOnly(e.currentTarget.checked)}
        />{" "}
        Only W-2G records
      </label>
      <ProblemBanner staff problem={records.problem} />
      {records.value && lines.length === 0 ? (
        <p class="hint">None.</p>
      ) : (
        <Scroll label="Prizes paid at the office" cards>
          <table class="data" data-testid="office-records">
            <caption class="visually-hidden">Prizes paid at the office, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Paid (central time)</th>
                <th scope="col">Game</th>
                <th scope="col">Ticket</th>
                <th scope="col">Prize paid</th>
                <th scope="col">Withheld</th>
                <th scope="col">To the claimant</th>
                <th scope="col">W-2G</th>
                <th scope="col">Claimant</th>
                <th scope="col">TIN (last 4)</th>
                <th scope="col">Paid by</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l) => (
                <tr key={l.id}>
                  <td>{when(l.at)}</td>
                  <td>{l.game}</td>
                  <td>{l.ticket}</td>
                  <td>{dollars(l.paid)}</td>
                  <td>{dollars(l.withheld)}</td>
                  <td>{dollars(l.net)}</td>
                  <td>{l.w2g ? "Yes" : "No"}</td>
                  <td>{l.claimant}</td>
                  <td>{l.tin}</td>
                  <td>{l.by}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </section>
  );
}

/** A prize paid at the lottery office: any prize of a certified drawing, the W-2G record and the
 * withholding as the rules make them, the grand prize by the winner's election. */
function PowerballOfficeClaim(props: { onPaid: () => void }): JSX.Element {
  const [serial, setSerial] = useState("");
  const [drawDate, setDrawDate] = useState("");
  const [name, setName] = useState("");
  const [tin, setTin] = useState("");
  const [election, setElection] = useState<"" | Schemas["Election"]>("");
  const [paid, setPaid] = useState<Schemas["PowerballClaimView"] | null>(null);
  const claim = useAction();
  return (
    <section class="box" aria-labelledby="pb-office-title">
      <h3 id="pb-office-title">Pay a Powerball prize</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void claim.run(async () => {
            setPaid(
              await must(
                api.staff.POST("/v1/powerball/office-claims", {
                  body: {
                    serial: serial.trim(),
                    draw_date: drawDate || null,
                    claimant: { name, tin_last4: tin.trim() || null },
                    election: election || null,
                  },
                }),
              ),
            );
            props.onPaid();
          });
        }}
      >
        <div class="row">
          <Field id="pb-claim-serial" label="Ticket serial (19 digits)" inputMode="numeric" value={serial} onInput={setSerial} />
          <Field id="pb-claim-date" label="Drawing (optional)" type="date" value={drawDate} onInput={setDrawDate} />
          <Field id="pb-claim-name" label="Claimant's name" value={name} onInput={setName} />
          <Field
            id="pb-claim-tin"
            label="Taxpayer number, last four (for a W-2G)"
            inputMode="numeric"
            value={tin}
            onInput={setTin}
          />
          <label class="field" for="pb-claim-election">
            <span>Grand prize paid as</span>
            <select
              id="pb-claim-election"
              value={election}
              onChange={(e) => setElection(e.currentTarget.value as "" | Schemas["Election"])}
            >
              <option value="">annuity (the default)</option>
              <option value="cash">cash</option>
            </select>
          </label>
        </div>
        <button type="submit" disabled={claim.busy || serial.trim() === "" || name.trim() === ""}>
          Pay the prize
        </button>
      </form>
      <ProblemBanner staff problem={claim.problem} />
      {paid && (
        <dl class="facts" data-testid="pb-office-paid">
          <dt>Prize</dt>
          <dd>
            {dollars(paid.prize_cents)} on ticket {paid.serial}, drawing {paid.draw_date}
          </dd>
          <dt>Paid now</dt>
          <dd>{dollars(paid.paid_cents)}</dd>
          <dt>Withheld</dt>
          <dd>{dollars(paid.withheld_cents)}</dd>
          <dt>To the claimant</dt>
          <dd>{dollars(paid.net_cents)}</dd>
          <dt>W-2G</dt>
          <dd>{paid.w2g ? "recorded" : "not required"}</dd>
          {paid.annuity_payments && (
            <>
              <dt>Annuity</dt>
              <dd>
                {paid.annuity_payments.length} payments, the first paid now; {dollars(paid.released_cents)} back to the
                house
              </dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}
