// The console's retail network: retailers (added, renamed, readdressed), their terminals (a key
// shown once when made, revoked at once), and instant ticket packs (shipped to a retailer,
// returned unsold, reported stolen), each pack named by its game and book.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api, dollars, must, type Schemas, when } from "../shared/session";
import { ConfirmButton, Field, ProblemBanner, Scroll, useAction, useLoad } from "../shared/ui";

type Retailer = Schemas["Retailer"];
type Pack = Schemas["ListedPackView"];

const PACK_STATES: Record<Pack["state"], string> = {
  printed: "printed, at the lottery",
  shipped: "shipped, not yet received",
  received: "received, not yet on sale",
  active: "on sale",
  settled: "settled",
  returned: "returned unsold",
  stolen: "reported stolen",
};

function useRetailers() {
  return useLoad(() => must(api.staff.GET("/v1/retailers")), []);
}

export function Retailers(): JSX.Element {
  const retailers = useRetailers();
  const [chosen, setChosen] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [address, setAddress] = useState("");
  const add = useAction();
  const list = retailers.value?.items ?? [];
  const current = list.find((r) => r.id === chosen);
  return (
    <div>
      <h2>Retailers</h2>
      <form
        class="box"
        aria-labelledby="new-retailer-title"
        onSubmit={(e) => {
          e.preventDefault();
          void add.run(async () => {
            const made = await must(
              api.staff.POST("/v1/retailers", { body: { name, address: address.trim() === "" ? null : address } }),
            );
            setName("");
            setAddress("");
            retailers.reload();
            setChosen(made.id);
          });
        }}
      >
        <h3 id="new-retailer-title">Add a retailer</h3>
        <div class="row">
          <Field id="retailer-name" label="Shop name" value={name} onInput={setName} />
          <Field id="retailer-address" label="Address (printed on receipts)" value={address} onInput={setAddress} />
        </div>
        <button type="submit" disabled={add.busy || name.trim() === ""}>
          Add the retailer
        </button>
        <ProblemBanner staff problem={add.problem} />
      </form>
      <ProblemBanner staff problem={retailers.problem} />
      <Scroll label="Retailers" cards>
        <table data-testid="retailers">
          <caption class="visually-hidden">Retailers, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Shop</th>
              <th scope="col">Address</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span class="visually-hidden">Open</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.id} aria-current={r.id === chosen ? "true" : undefined}>
                <td>{r.name}</td>
                <td>{r.address ?? "—"}</td>
                <td>{when(r.created_at)}</td>
                <td>
                  <button type="button" data-retailer={r.id} onClick={() => setChosen(r.id)}>
                    Open <span class="visually-hidden">{r.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {list.length === 0 && retailers.value && <p class="hint">No retailer yet.</p>}
      {current && <RetailerDesk key={current.id} retailer={current} onChange={retailers.reload} />}
    </div>
  );
}

/** A retailer as staff choose it: its name and address, since two shops may share a name (a
 * chain's branches); one without an address is told apart by its id's start. */
export function retailerLabel(r: { id: string; name: string; address?: string | null }): string {
  return r.address ? `${r.name} · ${r.address}` : `${r.name} · ${r.id.slice(0, 8)}`;
}

/** One retailer: its name and address changed, its terminals made and revoked, its packs. */
function RetailerDesk(props: { retailer: Retailer; onChange: () => void }): JSX.Element {
  const r = props.retailer;
  const [name, setName] = useState(r.name);
  const [address, setAddress] = useState(r.address ?? "");
  const save = useAction();
  return (
    <section class="box" aria-labelledby="retailer-title" data-testid="retailer">
      <h3 id="retailer-title">{r.name}</h3>
      <form
        aria-label="Name and address"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            await must(
              api.staff.PATCH("/v1/retailers/{id}", {
                params: { path: { id: r.id } },
                body: { name, address: address.trim() === "" ? null : address },
              }),
            );
            props.onChange();
          });
        }}
      >
        <div class="row">
          <Field id="retailer-rename" label="Shop name" value={name} onInput={setName} />
          <Field id="retailer-readdress" label="Address" value={address} onInput={setAddress} />
          <button type="submit" disabled={save.busy || name.trim() === ""}>
            Save name and address
          </button>
        </div>
        <p class="hint">Receipts printed before keep the name they printed; the tills show the new one from their next renewal.</p>
        <ProblemBanner staff problem={save.problem} />
      </form>
      <Terminals retailer={r} />
      <h4>Its packs</h4>
      <PackTable retailerId={r.id} />
    </section>
  );
}

function Terminals(props: { retailer: Retailer }): JSX.Element {
  const id = props.retailer.id;
  const terminals = useLoad(
    () => must(api.staff.GET("/v1/retailers/{id}/terminals", { params: { path: { id } } })),
    [id],
  );
  const [label, setLabel] = useState("");
  const [made, setMade] = useState<Schemas["NewTerminalView"] | null>(null);
  const add = useAction();
  return (
    <div>
      <h4>Terminals</h4>
      <ProblemBanner staff problem={terminals.problem} />
      <ul data-testid="terminals">
        {(terminals.value?.items ?? []).map((t) => (
          <li key={t.id}>
            <strong>{t.label}</strong> · key <code>lk_{t.key_prefix}_…</code> · since {when(t.created_at)} ·{" "}
            {t.revoked_at ? (
              <span>revoked {when(t.revoked_at)}</span>
            ) : (
              <ConfirmButton
                staff
                ask={`Revoke ${t.label}`}
                confirm={`Revoke ${t.label} now`}
                group={`Revoke ${t.label}`}
                act={async () => {
                  await must(api.staff.DELETE("/v1/terminals/{id}", { params: { path: { id: t.id } } }));
                  terminals.reload();
                }}
              />
            )}
          </li>
        ))}
      </ul>
      <form
        class="row"
        aria-label="Add a terminal"
        onSubmit={(e) => {
          e.preventDefault();
          void add.run(async () => {
            setMade(
              await must(api.staff.POST("/v1/retailers/{id}/terminals", { params: { path: { id } }, body: { label } })),
            );
            setLabel("");
            terminals.reload();
          });
        }}
      >
        <Field id="terminal-label" label="New till's name" value={label} onInput={setLabel} />
        <button type="submit" disabled={add.busy || label.trim() === ""}>
          Add a terminal
        </button>
      </form>
      <ProblemBanner staff problem={add.problem} />
      {made && (
        <div class="notice" role="status" data-testid="terminal-key">
          <p>
            The key of <strong>{made.label}</strong>, shown this once: enter it at the till now. It cannot be shown
            again; a lost key is revoked and a new terminal made.
          </p>
          <p>
            <code data-testid="api-key">{made.api_key}</code>
          </p>
          <button type="button" onClick={() => setMade(null)}>
            I have entered it: hide the key
          </button>
        </div>
      )}
    </div>
  );
}

/** Every pack, or one game's or state's: shipped to a retailer, returned, reported stolen. */
export function Packs(): JSX.Element {
  const [game, setGame] = useState("");
  const [state, setState] = useState<"" | Pack["state"]>("");
  return (
    <div>
      <h2>Instant ticket packs</h2>
      <div class="row">
        <Field id="packs-game" label="Game number (all when empty)" inputMode="numeric" value={game} onInput={setGame} />
        <label class="field" for="packs-state">
          <span>State</span>
          <select id="packs-state" value={state} onChange={(e) => setState(e.currentTarget.value as "" | Pack["state"])}>
            <option value="">every state</option>
            {Object.entries(PACK_STATES).map(([value, words]) => (
              <option key={value} value={value}>
                {words}
              </option>
            ))}
          </select>
        </label>
      </div>
      <PackTable game={/^\d{1,4}$/.test(game.trim()) ? Number(game.trim()) : undefined} state={state || undefined} />
    </div>
  );
}

function PackTable(props: { game?: number; state?: Pack["state"]; retailerId?: string }): JSX.Element {
  const [round, setRound] = useState(0);
  const [after, setAfter] = useState<string | undefined>(undefined);
  const packs = useLoad(
    () =>
      must(
        api.staff.GET("/v1/instant/packs", {
          params: { query: { game: props.game, state: props.state, retailer_id: props.retailerId, after, limit: 25 } },
        }),
      ),
    [props.game, props.state, props.retailerId, after, round],
  );
  const retailers = useRetailers();
  const names = new Map((retailers.value?.items ?? []).map((r) => [r.id, retailerLabel(r)]));
  const items = packs.value?.items ?? [];
  return (
    <div>
      <ProblemBanner staff problem={packs.problem} />
      <Scroll label="Packs" cards>
        <table data-testid={props.retailerId ? "retailer-packs" : "packs"}>
          <thead>
            <tr>
              <th scope="col">Pack</th>
              <th scope="col">State</th>
              <th scope="col">Retailer</th>
              <th scope="col" class="num">
                Owed
              </th>
              <th scope="col">What to do</th>
            </tr>
          </thead>
          <tbody>
            {items.map((p) => (
              <PackRow
                key={`${p.game}-${p.book}`}
                pack={p}
                retailers={retailers.value?.items ?? []}
                retailerName={p.retailer_id ? (names.get(p.retailer_id) ?? p.retailer_id) : "—"}
                onChange={() => setRound((n) => n + 1)}
              />
            ))}
          </tbody>
        </table>
      </Scroll>
      {items.length === 0 && packs.value && <p class="hint">No pack here.</p>}
      <div class="row">
        {after && (
          <button type="button" onClick={() => setAfter(undefined)}>
            First page
          </button>
        )}
        {packs.value?.next && (
          <button type="button" onClick={() => setAfter(packs.value?.next ?? undefined)}>
            Next page
          </button>
        )}
      </div>
    </div>
  );
}

function PackRow(props: {
  pack: Pack;
  retailers: Retailer[];
  retailerName: string;
  onChange: () => void;
}): JSX.Element {
  const p = props.pack;
  const [to, setTo] = useState("");
  const ship = useAction();
  const path = { game: p.game, book: p.book };
  const label = `game ${p.game} book ${p.book}`;
  return (
    <tr data-pack={`${p.game}-${p.book}`}>
      <td class="nowrap">
        Game {p.game}, book {p.book}
      </td>
      <td>{PACK_STATES[p.state]}</td>
      <td>{props.retailerName}</td>
      <td class="num">{p.owed_cents != null ? dollars(p.owed_cents) : "—"}</td>
      <td>
        {p.state === "printed" && (
          <form
            class="row"
            aria-label={`Ship ${label}`}
            onSubmit={(e) => {
              e.preventDefault();
              void ship.run(async () => {
                await must(
                  api.staff.POST("/v1/instant/packs/{game}/{book}/ship", {
                    params: { path },
                    body: { retailer_id: to },
                  }),
                );
                props.onChange();
              });
            }}
          >
            <label class="field" for={`ship-${p.game}-${p.book}`}>
              <span class="visually-hidden">Ship {label} to</span>
              <select id={`ship-${p.game}-${p.book}`} value={to} onChange={(e) => setTo(e.currentTarget.value)}>
                <option value="">choose a retailer</option>
                {props.retailers.map((r) => (
                  <option key={r.id} value={r.id}>
                    {retailerLabel(r)}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" disabled={ship.busy || to === ""}>
              Ship <span class="visually-hidden">{label}</span>
            </button>
            <ProblemBanner staff problem={ship.problem} />
          </form>
        )}
        {(p.state === "shipped" || p.state === "received") && (
          <ConfirmButton
            staff
            ask={`Take back ${label} unsold`}
            confirm={`Return ${label}: its tickets never pay`}
            group={`Return ${label}`}
            act={async () => {
              await must(api.staff.POST("/v1/instant/packs/{game}/{book}/return", { params: { path } }));
              props.onChange();
            }}
          />
        )}
        {(p.state === "shipped" || p.state === "received" || p.state === "active") && (
          <ConfirmButton
            staff
            ask={`Report ${label} stolen`}
            confirm={`Report ${label} stolen: refuse its tickets everywhere`}
            group={`Report ${label} stolen`}
            act={async () => {
              await must(api.staff.POST("/v1/instant/packs/{game}/{book}/stolen", { params: { path } }));
              props.onChange();
            }}
          />
        )}
      </td>
    </tr>
  );
}
