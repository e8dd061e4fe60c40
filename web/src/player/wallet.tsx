// The player's wallet: deposits through the payment provider (the sandbox's card or its
// declining one), cash-outs, what became of each payment, the ledger's lines and the office's prizes.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { OfficePrizes } from "../shared/powerball";
import { api, centsOf, dollars, must, newKey, type Schemas } from "../shared/session";
import { Field, ProblemBanner, useAction } from "../shared/ui";
import { Payments, WalletHistory } from "./wallet_history";

export function WalletPanel(props: { wallet: Schemas["Account"] | undefined; onChange: () => void }): JSX.Element {
  const [amount, setAmount] = useState("50.00");
  const [method, setMethod] = useState("sandbox_card");
  const [payment, setPayment] = useState<Schemas["PaymentView"] | null>(null);
  const [sent, setSent] = useState(0);
  const move = useAction();
  const send = (kind: "deposit" | "withdrawal") =>
    move.run(async () => {
      const cents = centsOf(amount);
      if (cents === null || cents <= 0) throw new Error("Enter an amount in dollars, like 25 or 12.50.");
      const request = {
        params: { header: { "Idempotency-Key": newKey() } },
        body: { amount: cents, currency: "USD" as const, payment_method: method },
      };
      let view =
        kind === "deposit"
          ? await must(api.player.POST("/v1/me/deposits", request))
          : await must(api.player.POST("/v1/me/withdrawals", request));
      setPayment(view);
      // The provider answers within seconds with a signed webhook; follow the payment until then.
      for (let i = 0; i < 30 && view.state === "pending"; i++) {
        await new Promise((r) => setTimeout(r, 500));
        view = await must(api.player.GET("/v1/me/payments/{id}", { params: { path: { id: view.id } } }));
        setPayment(view);
      }
      setSent((n) => n + 1);
      props.onChange();
    });
  return (
    <div>
      <h2>Wallet</h2>
      {props.wallet && (
        <p>
          Available <strong>{dollars(props.wallet.balance.available)}</strong> · held for cash-outs{" "}
          {dollars(props.wallet.balance.pending_debits)}
        </p>
      )}
      <form
        class="box"
        aria-label="Deposit or cash out"
        onSubmit={(e) => {
          e.preventDefault();
          void send("deposit");
        }}
      >
        <Field id="amount" label="Amount (dollars)" inputMode="decimal" value={amount} onInput={setAmount} />
        <label class="field" for="method">
          <span>Payment method (sandbox)</span>
          <select id="method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
            <option value="sandbox_card">Sandbox card (approved)</option>
            <option value="sandbox_decline">Sandbox card (declined)</option>
          </select>
        </label>
        <div class="row">
          <button type="submit" disabled={move.busy}>
            Deposit
          </button>
          <button type="button" disabled={move.busy} onClick={() => void send("withdrawal")}>
            Cash out
          </button>
        </div>
        {payment && (
          <p role="status" data-testid="payment-state">
            {payment.kind} of {dollars(payment.amount)}: {payment.state}
            {payment.failure ? ` (${payment.failure})` : ""}
          </p>
        )}
        <ProblemBanner problem={move.problem} />
      </form>
      <Payments sent={sent} />
      <WalletHistory balance={props.wallet?.balance.posted} />
      <OfficePrizes />
    </div>
  );
}
