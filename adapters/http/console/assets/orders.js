// @ts-check
// Orders: a page at a time (newest first, or oldest), filtered by state, a pet picked by name and the key that placed
// them; each row with its pet's name, the label of the key that placed it and when (`expand=placement`: the API's
// Order keeps the seed's shape unless asked).

import { useEffect, useState } from "preact/hooks";
import { explain, petsById, query } from "./api.js";
import { Pager, SortHeader, loaded, usePagedList, useSettled } from "./paging.js";
import { Alert, Confirm, html, useFocusAfter, when } from "./ui.js";

/**
 * @typedef {import("./api.js").Api} Api
 * @typedef {{ at: string, by: { id: number, label?: string } }} Placement
 * @typedef {import("./api.js").Order & { placement?: Placement }} Order
 * @typedef {import("./api.js").Pet} Pet
 * @typedef {{ id: number, label: string }} KeyLabel
 */

/**
 * A pet picked by name: a search field and the matching pets (the service searches by the start of the name).
 * @param {{ api: Api, petId: string, onPick: (petId: string) => void }} props
 */
const PetPicker = ({ api, petId, onPick }) => {
  const [search, setSearch] = useState("");
  const [matches, setMatches] = useState(/** @type {Pet[]} */ ([]));
  const settled = useSettled(search.trim(), 250);
  useEffect(() => {
    let live = true;
    api("GET", `/pets${query({ sort: "name", limit: 20, name: settled })}`)
      .then((res) => live && setMatches(res.body))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [settled]);
  const picked = matches.some((pet) => String(pet.id) === petId);
  return html`<span class="picker">
    <label for="order-pet-search">Pet name starts with</label>
    <input id="order-pet-search" type="search" value=${search} autocomplete="off"
      onInput=${(/** @type {Event} */ e) => setSearch(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <label for="order-pet">Pet</label>
    <select id="order-pet" value=${petId}
      onChange=${(/** @type {Event} */ e) => onPick(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
      <option value="">Any pet</option>
      ${petId && !picked ? html`<option value=${petId}>Pet #${petId}</option>` : null}
      ${matches.map((pet) => html`<option value=${String(pet.id)}>${pet.name} (#${pet.id})</option>`)}
    </select>
  </span>`;
};

/**
 * The key that placed an order, by its label (a key that no longer exists, by its id).
 * @param {Placement | undefined} placement
 */
const placer = (placement) =>
  placement === undefined
    ? "—"
    : placement.by.label === undefined
      ? html`<span class="id">key #${placement.by.id}</span>`
      : html`${placement.by.label} <span class="id">key #${placement.by.id}</span>`;

/**
 * @param {{ api: Api, bus: import("./events.js").Bus, canWrite: boolean, me: import("./api.js").Me,
 *   labels: Map<number, string> }} props
 */
export const Orders = ({ api, bus, canWrite, me, labels }) => {
  const [state, setState] = useState("");
  const [petId, setPetId] = useState("");
  const [placedBy, setPlacedBy] = useState("");
  const [sort, setSort] = useState("-id");
  const [size, setSize] = useState(20);
  const [names, setNames] = useState(/** @type {Map<number, string>} */ (new Map()));
  const [fresh, setFresh] = useState(/** @type {Set<number>} */ (new Set()));
  const [confirming, setConfirming] = useState(/** @type {{ id: number, action: string } | undefined} */ (undefined));
  const [errors, setErrors] = useState(/** @type {Record<number, string | undefined>} */ ({}));
  const [said, setSaid] = useState("");
  const focusAfter = useFocusAfter("#orders-title");
  /** @param {number[]} ids */
  const learnNames = async (ids) => {
    const pets = await petsById(api, ids);
    setNames((known) => {
      const next = new Map(known);
      for (const pet of pets.values()) next.set(pet.id, pet.name);
      return next;
    });
  };
  const list = usePagedList(
    api,
    `/store/orders${query({ sort, limit: size, state, petId, placedBy, expand: "placement" })}`,
    /** @returns {Promise<Order[]>} */
    async (orders) => {
      await learnNames(orders.map((/** @type {Order} */ o) => o.petId));
      return orders;
    },
  );
  const filters = { state, petId, placedBy, sort, last: !list.hasNext, first: list.page === 1 };
  useEffect(
    () =>
      bus.on((event) => {
        const order = /** @type {Order} */ (event.data);
        if (event.type === "order.placed") {
          const matches = filters.state !== "complete" && (!filters.petId || Number(filters.petId) === order.petId);
          // A new order belongs on the first page newest first, on the last page oldest first.
          const here = filters.sort === "-id" ? filters.first : filters.last;
          if (!matches || !here) return;
          void learnNames([order.petId]).catch(() => undefined);
          // Events do not say who placed an order: the order itself does, when asked.
          void api("GET", `/store/orders/${order.id}${query({ expand: "placement" })}`)
            .then((res) => {
              /** @type {Order} */
              const placed = res.body;
              if (filters.placedBy && String(placed.placement?.by.id) !== filters.placedBy) return;
              // Answers to these reads may come back in any order: each row goes where the page's sort puts it.
              list.update((rows) =>
                rows.some((o) => o.id === placed.id)
                  ? rows
                  : [...rows, placed].sort((a, b) => (filters.sort === "-id" ? b.id - a.id : a.id - b.id)),
              );
              setFresh((current) => new Set(current).add(placed.id));
            })
            .catch(() => undefined);
        }
        if (event.type === "order.completed") {
          list.update((rows) =>
            filters.state === "open"
              ? rows.filter((o) => o.id !== order.id)
              : rows.map((o) => (o.id === order.id ? { ...o, ...order } : o)),
          );
        }
        if (event.type === "order.cancelled") list.update((rows) => rows.filter((o) => o.id !== order.id));
      }),
    [state, petId, placedBy, sort, list.hasNext, list.page],
  );
  /**
   * @param {Order} order
   * @param {string} action
   */
  const act = async (order, action) => {
    setConfirming(undefined);
    try {
      if (action === "complete") {
        const res = await api("PATCH", `/store/orders/${order.id}`, { body: { complete: true } });
        list.update((rows) => rows.map((o) => (o.id === order.id ? { ...o, ...res.body } : o)));
        setSaid(`Order ${order.id} completed`);
        focusAfter(`#order-${order.id}`);
      } else {
        await api("DELETE", `/store/orders/${order.id}`);
        list.update((rows) => rows.filter((o) => o.id !== order.id));
        setSaid(`Order ${order.id} cancelled`);
        focusAfter("#orders-title");
      }
      setErrors((current) => ({ ...current, [order.id]: undefined }));
    } catch (e) {
      setErrors((current) => ({ ...current, [order.id]: explain(e) }));
      focusAfter(`#${action}-order-${order.id}`);
    }
  };
  const keyOptions = [...labels.entries()];
  return html`<section aria-labelledby="orders-title">
    <h2 id="orders-title" tabindex="-1">Orders</h2>
    <div class="toolbar">
      <label for="order-state">Show</label>
      <select id="order-state" value=${state}
        onChange=${(/** @type {Event} */ e) => setState(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
        <option value="">Open and complete</option>
        <option value="open">Open only</option>
        <option value="complete">Complete only</option>
      </select>
      <${PetPicker} api=${api} petId=${petId} onPick=${setPetId} />
      ${
        keyOptions.length
          ? html`<label for="order-placed-by">Placed by</label>
            <select id="order-placed-by" value=${placedBy}
              onChange=${(/** @type {Event} */ e) => setPlacedBy(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
              <option value="">Anyone</option>
              ${keyOptions.map(([id, label]) => html`<option value=${String(id)}>${label} (key #${id})</option>`)}
            </select>`
          : html`<label class="check"><input type="checkbox" id="order-mine" checked=${placedBy === String(me.id)}
              onChange=${(/** @type {Event} */ e) => setPlacedBy(/** @type {HTMLInputElement} */ (e.currentTarget).checked ? String(me.id) : "")} />
              Placed with my key</label>`
      }
    </div>
    <p class="visually-hidden" role="status" aria-live="polite">${said}</p>
    ${loaded(
      list,
      (/** @type {Order[]} */ rows) => html`<table id="orders" class="cards">
          <caption class="visually-hidden">Orders, ${sort === "-id" ? "newest" : "oldest"} first</caption>
          <thead><tr>
            <${SortHeader} label="Order" sort=${sort} options=${["-id", "id"]} onSort=${setSort} />
            <th scope="col">Pet</th><th scope="col">Placed by</th><th scope="col">Placed</th>
            <th scope="col">Quantity</th><th scope="col">Ship date</th><th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            ${rows.length === 0 ? html`<tr><td colspan="8">No orders.</td></tr>` : null}
            ${rows.map(
              (order) => html`<tr key=${order.id} data-order-id=${order.id} class=${fresh.has(order.id) ? "fresh" : ""}>
                <th scope="row" id=${`order-${order.id}`} tabindex="-1">#${order.id}${
                  fresh.has(order.id) ? html` <span class="badge new">new</span>` : null
                }</th>
                <td data-label="Pet" class="pet">${names.get(order.petId) ?? "…"} <span class="id">#${order.petId}</span></td>
                <td data-label="Placed by" class="placed-by">${placer(order.placement)}</td>
                <td data-label="Placed" class="placed-at">${when(order.placement?.at)}</td>
                <td data-label="Quantity">${order.quantity}</td>
                <td data-label="Ship date">${when(order.shipDate)}</td>
                <td data-label="State"><span class=${`state ${order.complete ? "complete" : "open"}`}>${order.complete ? "complete" : "open"}</span></td>
                <td data-label="Actions">
                  ${
                    order.complete
                      ? null
                      : confirming?.id === order.id
                        ? html`<${Confirm}
                          question=${confirming.action === "complete" ? `Complete order ${order.id}?` : `Cancel order ${order.id}? Its units go back to stock.`}
                          yes=${confirming.action === "complete" ? "Yes, complete" : "Yes, cancel"}
                          no=${confirming.action === "complete" ? "Not yet" : "Keep it"}
                          onYes=${() => act(order, confirming.action)}
                          onNo=${() => {
                            setConfirming(undefined);
                            focusAfter(`#${confirming.action}-order-${order.id}`);
                          }}
                        />`
                        : html`<button id=${`complete-order-${order.id}`} disabled=${!canWrite} onClick=${() => setConfirming({ id: order.id, action: "complete" })} aria-label=${`Complete order ${order.id}`}>Complete</button>
                          <button id=${`cancel-order-${order.id}`} onClick=${() => setConfirming({ id: order.id, action: "cancel" })} aria-label=${`Cancel order ${order.id}`}>Cancel</button>`
                  }
                  <${Alert} message=${errors[order.id]} />
                </td>
              </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} list=${list} what="orders" size=${size} onSize=${setSize} id="orders-size" />`,
    )}
  </section>`;
};
