// The retailer's till: a scan field that takes a keyboard-wedge scanner's input (digits and
// Enter), the VIRN from under the latex, validate, pay with a receipt to print, and the shop's
// packs to receive, activate and settle.
import type { JSX } from "preact";
import { useRef, useState } from "preact/hooks";
import { api, dollars, must, newKey, placeOf, publicApi, type Schemas, signIn, signOut, when } from "./session";
import { EndedNotice, Field, ProblemBanner, TabPanel, Tabs, useAction, useLoad } from "./ui";

export function TillEntry(): JSX.Element {
  const [key, setKey] = useState("");
  const login = useAction();
  return (
    <form
      class="box narrow"
      aria-labelledby="till-login-title"
      onSubmit={(e) => {
        e.preventDefault();
        void login.run(async () => {
          const session = await must(publicApi.POST("/v1/sessions", { body: { api_key: key.trim() } }));
          signIn("till", session);
        });
      }}
    >
      <h2 id="till-login-title">Retailer terminal</h2>
      <EndedNotice area="till" />
      <Field id="till-key" label="Terminal API key" type="password" autoComplete="off" value={key} onInput={setKey} />
      <button type="submit" disabled={login.busy}>
        Start the till
      </button>
      <ProblemBanner problem={login.problem} />
    </form>
  );
}

const TILL_TABS = [
  { id: "counter", title: "Counter" },
  { id: "packs", title: "Packs" },
  { id: "receipts", title: "Receipts" },
] as const;
type TillTab = (typeof TILL_TABS)[number]["id"];

export function TillScreens(): JSX.Element {
  const [tab, setTab] = useState<TillTab>("counter");
  const place = placeOf("till");
  return (
    <div>
      <div class="bar">
        <p class="till-place">
          {place ? (
            <>
              <strong>{place.shop}</strong>
              {place.address ? ` · ${place.address}` : ""} — <strong>{place.terminal}</strong>
            </>
          ) : (
            "Till"
          )}
        </p>
        <button type="button" onClick={() => void api.till.DELETE("/v1/sessions/current").finally(() => signOut("till"))}>
          Close the till
        </button>
      </div>
      <Tabs label="Till" tabs={TILL_TABS} current={tab} onSelect={setTab} />
      <TabPanel id={tab}>
        {tab === "counter" && <Counter />}
        {tab === "packs" && <Packs />}
        {tab === "receipts" && <Receipts />}
      </TabPanel>
    </div>
  );
}

function Counter(): JSX.Element {
  const [barcode, setBarcode] = useState("");
  const [virn, setVirn] = useState("");
  const [checked, setChecked] = useState<{ view: Schemas["ValidationView"]; key: string } | null>(null);
  const [receipt, setReceipt] = useState<Schemas["ReceiptView"] | null>(null);
  const virnField = useRef<HTMLInputElement>(null);
  const scanField = useRef<HTMLInputElement>(null);
  const act = useAction();
  const ticket = () => ({ barcode: barcode.replace(/\D/g, ""), virn: virn.replace(/\D/g, "") });
  const validate = () =>
    act.run(async () => {
      setReceipt(null);
      const view = await must(api.till.POST("/v1/instant/validations", { body: ticket() }));
      // One key per ticket validated: a second press of Pay (or a retry after a dropped line)
      // answers the same receipt instead of paying twice.
      setChecked({ view, key: newKey() });
    });
  const pay = () =>
    act.run(async () => {
      if (!checked) return;
      const paid = await must(
        api.till.POST("/v1/instant/claims", { params: { header: { "Idempotency-Key": checked.key } }, body: ticket() }),
      );
      setReceipt(paid);
    });
  const next = () => {
    setBarcode("");
    setVirn("");
    setChecked(null);
    setReceipt(null);
    act.clear();
    scanField.current?.focus();
  };
  return (
    <div>
      <h2>Validate and pay</h2>
      <form
        class="box"
        aria-label="Ticket"
        onSubmit={(e) => {
          e.preventDefault();
          void validate();
        }}
      >
        <Field
          id="scan"
          label="Scan the barcode"
          inputMode="numeric"
          autoComplete="off"
          autoFocus
          inputRef={scanField}
          value={barcode}
          onInput={(v) => {
            setBarcode(v);
            setChecked(null);
          }}
          // A keyboard-wedge scanner types the digits and presses Enter: go on to the VIRN.
          onEnter={() => virnField.current?.focus()}
        />
        <Field
          id="virn"
          label="VIRN (12 digits under the latex)"
          inputMode="numeric"
          autoComplete="off"
          inputRef={virnField}
          value={virn}
          onInput={(v) => {
            setVirn(v);
            setChecked(null);
          }}
          onEnter={() => void validate()}
        />
        <div class="row">
          <button type="submit" disabled={act.busy}>
            Validate
          </button>
          <button type="button" disabled={act.busy || !checked?.view.winner || checked.view.paid_at !== "retailer" || receipt !== null} onClick={() => void pay()}>
            Pay
          </button>
          <button type="button" onClick={next}>
            Next ticket
          </button>
        </div>
      </form>
      <ProblemBanner problem={act.problem} />
      {checked && (
        <p role="status" data-testid="validation">
          {checked.view.winner
            ? `Winner: ${checked.view.free_ticket ? "a free ticket" : dollars(checked.view.prize_cents)}${checked.view.paid_at === "lottery_office" ? ", paid at the lottery office" : ", pay it here"}`
            : "Not a winner."}
        </p>
      )}
      {receipt && (
        <figure class="receipt" data-testid="receipt">
          <figcaption>Receipt {receipt.receipt_id}</figcaption>
          <pre>{receipt.lines.join("\n")}</pre>
          <button type="button" onClick={() => window.print()}>
            Print receipt
          </button>
        </figure>
      )}
    </div>
  );
}

type PackMove = "receive" | "activate" | "settle";

function movesOf(state: Schemas["ListedPackView"]["state"]): PackMove[] {
  switch (state) {
    case "shipped":
      return ["receive", "activate"];
    case "received":
      return ["activate"];
    case "active":
      return ["settle"];
    default:
      return [];
  }
}

function Packs(): JSX.Element {
  const packs = useLoad(() => must(api.till.GET("/v1/instant/packs", { params: { query: { limit: 100 } } })), []);
  const act = useAction();
  const move = (pack: Schemas["ListedPackView"], to: PackMove) =>
    act.run(async () => {
      const path = { game: pack.game, book: pack.book };
      if (to === "receive") await must(api.till.POST("/v1/instant/packs/{game}/{book}/receive", { params: { path } }));
      if (to === "activate") await must(api.till.POST("/v1/instant/packs/{game}/{book}/activate", { params: { path } }));
      if (to === "settle") await must(api.till.POST("/v1/instant/packs/{game}/{book}/settle", { params: { path } }));
      packs.reload();
    });
  return (
    <div>
      <h2>Packs at this shop</h2>
      <ProblemBanner problem={packs.problem ?? act.problem} />
      <table>
        <thead>
          <tr>
            <th scope="col">Game</th>
            <th scope="col">Book</th>
            <th scope="col">State</th>
            <th scope="col">Since</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(packs.value?.items ?? []).map((p) => (
            <tr key={`${p.game}-${p.book}`}>
              <td>{p.game}</td>
              <td>{p.book}</td>
              <td>{p.state}</td>
              <td>{when(p.activated_at ?? p.received_at ?? p.shipped_at)}</td>
              <td>
                {movesOf(p.state).map((m) => (
                  <button key={m} type="button" disabled={act.busy} onClick={() => void move(p, m)}>
                    {m[0]?.toUpperCase()}
                    {m.slice(1)} pack {p.book}
                  </button>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Receipts(): JSX.Element {
  const receipts = useLoad(() => must(api.till.GET("/v1/instant/claims", { params: { query: { limit: 50 } } })), []);
  return (
    <div>
      <h2>Receipts</h2>
      <ProblemBanner problem={receipts.problem} />
      <table>
        <thead>
          <tr>
            <th scope="col">Paid</th>
            <th scope="col">Game</th>
            <th scope="col">Barcode</th>
            <th scope="col" class="num">
              Prize
            </th>
          </tr>
        </thead>
        <tbody>
          {(receipts.value?.items ?? []).map((r) => (
            <tr key={r.receipt_id}>
              <td>{when(r.paid_at)}</td>
              <td>{r.game_name}</td>
              <td>{r.barcode}</td>
              <td class="num">{dollars(r.paid_cents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
