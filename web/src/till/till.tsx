// The retailer's till: a scan field that takes a keyboard-wedge scanner's input (digits and
// Enter), the VIRN from under the latex, validate, pay with a receipt to print, and the shop's
// packs scanned in by any ticket's barcode (or received, activated and settled one by one),
// every receipt printed again; Powerball sold (its ticket printed) and paid.
import type { JSX } from "preact";
import { Fragment } from "preact";
import { useRef, useState } from "preact/hooks";
import { api, dollars, lotteryMidnight, must, newKey, placeOf, publicApi, type Schemas, signIn, when } from "../shared/session";
import { PowerballTill } from "../shared/powerball";
import { EndedNotice, Field, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";
import { AreaShell } from "../shared/area";

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
  { id: "powerball", title: "Powerball" },
  { id: "packs", title: "Packs" },
  { id: "receipts", title: "Receipts" },
  { id: "day", title: "Today" },
] as const;
type TillTab = (typeof TILL_TABS)[number]["id"];

export function TillScreens(): JSX.Element {
  const [tab, setTab] = useState<TillTab>("counter");
  const place = placeOf("till");
  return (
    <AreaShell
      area="till"
      who={
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
      }
      leave="Close the till"
      label="Till"
      tabs={TILL_TABS}
      current={tab}
      onSelect={setTab}
    >
      {tab === "counter" && <Counter />}
      {tab === "powerball" && <PowerballTill />}
      {tab === "packs" && <Packs />}
      {tab === "receipts" && <Receipts />}
      {tab === "day" && <TillDay />}
    </AreaShell>
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
      {receipt && <ReceiptCard receipt={receipt} />}
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

/** A pack named by any of its tickets' barcodes (`GGG-BBBBBB-TTT-C`, or the 13 digits a scanner
 * types): its game and book. */
function packOfBarcode(text: string): { game: number; book: number } | null {
  const m = /^\s*(\d{3})-?(\d{6})-?(\d{3})-?(\d)\s*$/.exec(text);
  return m ? { game: Number(m[1]), book: Number(m[2]) } : null;
}

const PACK_STATES: Record<Schemas["ListedPackView"]["state"], string> = {
  printed: "printed",
  shipped: "on its way",
  received: "received, not on sale",
  active: "on sale",
  settled: "settled",
  returned: "returned",
  stolen: "reported stolen",
};

function Packs(): JSX.Element {
  const packs = useLoad(() => must(api.till.GET("/v1/instant/packs", { params: { query: { limit: 100 } } })), []);
  const act = useAction();
  const [scan, setScan] = useState("");
  const [said, setSaid] = useState<string | null>(null);
  const move = (pack: { game: number; book: number }, to: PackMove) =>
    act.run(async () => {
      const path = { game: pack.game, book: pack.book };
      if (to === "receive") await must(api.till.POST("/v1/instant/packs/{game}/{book}/receive", { params: { path } }));
      if (to === "activate") await must(api.till.POST("/v1/instant/packs/{game}/{book}/activate", { params: { path } }));
      if (to === "settle") await must(api.till.POST("/v1/instant/packs/{game}/{book}/settle", { params: { path } }));
      packs.reload();
    });
  // A pack scanned in (any ticket's barcode): one that arrived is put on sale, its receipt
  // confirmed in the same step; any other is said as it stands.
  const scanIn = () => {
    setSaid(null);
    const pack = packOfBarcode(scan);
    if (!pack) {
      setSaid("That is not a ticket's barcode: scan any ticket of the pack.");
      return;
    }
    const name = `Game ${pack.game}, book ${pack.book}`;
    const listed = (packs.value?.items ?? []).find((p) => p.game === pack.game && p.book === pack.book);
    if (listed && listed.state !== "shipped" && listed.state !== "received") {
      setSaid(`${name} is ${PACK_STATES[listed.state]}: nothing to do.`);
      return;
    }
    void act.run(async () => {
      await must(api.till.POST("/v1/instant/packs/{game}/{book}/activate", { params: { path: pack } }));
      packs.reload();
      setSaid(`${name}: received and on sale.`);
      setScan("");
    });
  };
  return (
    <div>
      <h2>Packs at this shop</h2>
      <form
        class="row"
        aria-label="Scan a pack in"
        onSubmit={(e) => {
          e.preventDefault();
          scanIn();
        }}
      >
        <Field id="pack-scan" label="Scan any ticket of an arriving pack" inputMode="numeric" value={scan} onInput={setScan} />
        <button type="submit" disabled={act.busy || scan.trim() === ""}>
          Put the pack on sale
        </button>
      </form>
      {said && (
        <p role="status" data-testid="pack-scan-said">
          {said}
        </p>
      )}
      <ProblemBanner problem={packs.problem ?? act.problem} />
      <Scroll label="Packs at this shop" cards>
        <table>
          <thead>
            <tr>
              <th scope="col">Pack</th>
              <th scope="col">State</th>
              <th scope="col">Since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(packs.value?.items ?? []).map((p) => (
              <tr key={`${p.game}-${p.book}`}>
                <td>
                  Game {p.game}, book {p.book}
                </td>
                <td>{PACK_STATES[p.state]}</td>
                <td>{when(p.activated_at ?? p.received_at ?? p.shipped_at)}</td>
                <td>
                  {movesOf(p.state).map((m) => (
                    <button key={m} type="button" disabled={act.busy} onClick={() => void move(p, m)}>
                      {m[0]?.toUpperCase()}
                      {m.slice(1)} game {p.game} book {p.book}
                    </button>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </div>
  );
}

/** A receipt as printed (a reprint says it is a copy). */
function ReceiptCard(props: { receipt: Schemas["ReceiptView"]; copy?: boolean }): JSX.Element {
  return (
    <figure class="receipt" data-testid={props.copy ? "receipt-copy" : "receipt"}>
      <figcaption>
        Receipt {props.receipt.receipt_id}
        {props.copy ? " (copy)" : ""}
      </figcaption>
      <pre>{(props.copy ? ["COPY", ...props.receipt.lines] : props.receipt.lines).join("\n")}</pre>
      <button type="button" onClick={() => window.print()}>
        Print receipt
      </button>
    </figure>
  );
}

/** The receipts of prizes paid here, newest first; any one printed again. */
function Receipts(): JSX.Element {
  const receipts = useLoad(() => must(api.till.GET("/v1/instant/claims", { params: { query: { limit: 50 } } })), []);
  const reprint = useAction();
  const [shown, setShown] = useState<Schemas["ReceiptView"] | null>(null);
  return (
    <div>
      <h2>Receipts</h2>
      <ProblemBanner problem={receipts.problem} />
      <Scroll label="Receipts" cards>
        <table>
          <thead>
            <tr>
              <th scope="col">Paid</th>
              <th scope="col">Game</th>
              <th scope="col">Barcode</th>
              <th scope="col" class="num">
                Prize
              </th>
              <th scope="col">
                <span class="visually-hidden">Reprint</span>
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
                <td>
                  <button
                    type="button"
                    class="link"
                    disabled={reprint.busy}
                    data-receipt={r.receipt_id}
                    onClick={() =>
                      void reprint.run(async () => {
                        setShown(
                          await must(
                            api.till.GET("/v1/instant/receipts/{id}", { params: { path: { id: r.receipt_id } } }),
                          ),
                        );
                      })
                    }
                  >
                    Reprint <span class="visually-hidden">the receipt of {r.barcode}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <ProblemBanner problem={reprint.problem} />
      {shown && <ReceiptCard receipt={shown} copy />}
    </div>
  );
}

/** What the shop owes the lottery, or (negative) what the lottery owes it, in words. */
function owed(cents: number): string {
  return cents >= 0 ? dollars(cents) : `nothing; the lottery owes the shop ${dollars(-cents)}`;
}

/** The till's day: what the shop sold, earned and paid since midnight (its time), what it owes
 * the lottery now, and the close-out to print at the end of the day. The close-out is the day's
 * report as the lottery's books hold it; it changes nothing there (packs settle one by one, and
 * the shop's balance runs across days). */
function TillDay(): JSX.Element {
  const me = useLoad(() => must(api.till.GET("/v1/me")), []);
  const [round, setRound] = useState(0);
  const [closed, setClosed] = useState<string | null>(null);
  const id = me.value?.retailer_id ?? null;
  const midnight = lotteryMidnight();
  const day = useLoad(
    () =>
      id
        ? must(
            api.till.GET("/v1/instant/retailers/{id}/statement", {
              params: { path: { id }, query: { since: midnight.toISOString(), until: new Date().toISOString() } },
            }),
          )
        : Promise.resolve(null),
    [id, round],
  );
  // Powerball at this retailer over the same hours: sold at its terminals, paid at them.
  const powerball = useLoad(
    () =>
      id
        ? must(
            api.till.GET("/v1/powerball/retail/day", {
              params: { query: { since: midnight.toISOString(), until: new Date().toISOString() } },
            }),
          )
        : Promise.resolve(null),
    [id, round],
  );
  const place = placeOf("till");
  const s = day.value;
  const pb = powerball.value;
  const lines: [string, string][] = s
    ? [
        ["Instant: packs settled today (sales)", `${s.settlements.length} · ${dollars(s.sales_cents)}`],
        ["Commission earned on them", dollars(s.commission_cents)],
        ["Owed for them", dollars(s.owed_cents)],
        ["Instant prizes paid here", `${s.prizes_paid} · ${dollars(s.prizes_paid_cents)}`],
        ["Instant: today's net to the lottery", owed(s.net_owed_cents)],
        ...(pb
          ? ([
              ["Powerball tickets sold today", `${pb.tickets_sold} · ${dollars(pb.sales_cents)}`],
              ["Powerball prizes paid here", `${pb.prizes_paid} · ${dollars(pb.prizes_paid_cents)}`],
            ] as [string, string][])
          : []),
        ["Owed to the lottery now, all games", owed(s.balance_owed_cents)],
      ]
    : [];
  return (
    <div>
      <h2>Today at this till</h2>
      <ProblemBanner problem={me.problem ?? day.problem ?? powerball.problem} />
      <dl class="facts" data-testid="till-day">
        {lines.map(([what, figure]) => (
          <Fragment key={what}>
            <dt>{what}</dt>
            <dd>{figure}</dd>
          </Fragment>
        ))}
      </dl>
      {s && (
        <p class="hint">
          Packs here now:{" "}
          {Object.entries(s.packs)
            .map(([state, n]) => `${n} ${PACK_STATES[state as Schemas["ListedPackView"]["state"]] ?? state}`)
            .join(", ") || "none"}
          .
        </p>
      )}
      <div class="row">
        <button type="button" onClick={() => setRound((n) => n + 1)}>
          Bring the figures up to date
        </button>
        <button
          type="button"
          disabled={!s}
          onClick={() => {
            setRound((n) => n + 1);
            setClosed(new Date().toISOString());
          }}
        >
          Close out the day
        </button>
      </div>
      {closed && s && (
        <figure class="receipt" data-testid="close-out">
          <figcaption>Close-out</figcaption>
          <pre>
            {[
              "END OF DAY CLOSE-OUT",
              place ? `${place.shop}${place.address ? `, ${place.address}` : ""}` : "",
              place ? `Terminal  ${place.terminal}` : "",
              `From      ${when(midnight.toISOString())}`,
              `To        ${when(closed)}`,
              ...lines.map(([what, figure]) => `${what}: ${figure}`),
            ]
              .filter((l) => l !== "")
              .join("\n")}
          </pre>
          <button type="button" onClick={() => window.print()}>
            Print the close-out
          </button>
        </figure>
      )}
    </div>
  );
}
