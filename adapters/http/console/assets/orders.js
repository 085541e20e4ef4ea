// @ts-check
// Orders: a page at a time (newest first, or oldest), filtered by state, a pet picked by name and the key that placed
// them; each row with its pet's name, the label of the key that placed it and when (`expand=placement`: the API's
// Order keeps the seed's shape unless asked). Completed or cancelled one at a time or in bulk, always confirmed.

import { useEffect, useState } from "preact/hooks";
import { petsById, query } from "./api.js";
import { ExportButton } from "./export.js";
import { Pager, SortHeader, loaded, sizeOf, usePagedList, useSettled } from "./paging.js";
import { Confirm, OutcomeLine, html, refusal, useFocusAfter, when } from "./ui.js";
import { useView } from "./url-state.js";

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

/** What each action does, asks and reports, one order or many. */
const ACTIONS = {
  complete: {
    ask: (/** @type {string} */ what) => `Complete ${what}?`,
    detail:
      "This cannot be undone: a completed order never changes again, and its ship date is set to now if it has none.",
    yes: "Yes, complete",
    no: "Not yet",
    done: "completed",
  },
  cancel: {
    ask: (/** @type {string} */ what) => `Cancel ${what}?`,
    detail: "This cannot be undone: the units go back to stock, and the order is gone.",
    yes: "Yes, cancel",
    no: "Keep it",
    done: "cancelled",
  },
};

/** @param {number} n */
const orders = (n) => (n === 1 ? "1 order" : `${n} orders`);

/**
 * The orders page as the view asks for it, with the pets' names, kept current by the event stream.
 * @param {Api} api
 * @param {import("./events.js").Bus} bus
 * @param {import("./url-state.js").View} view
 */
const useOrderList = (api, bus, view) => {
  const [names, setNames] = useState(/** @type {Map<number, string>} */ (new Map()));
  const [fresh, setFresh] = useState(/** @type {Set<number>} */ (new Set()));
  const state = view.get("state");
  const petId = view.get("pet");
  const placedBy = view.get("by");
  const sort = view.get("sort", "-id");
  const size = sizeOf(view);
  /** @param {number[]} ids */
  const learnNames = async (ids) => {
    const pets = await petsById(api, ids);
    setNames((known) => {
      const next = new Map(known);
      for (const pet of pets.values()) next.set(pet.id, pet.name);
      return next;
    });
  };
  const first = `/store/orders${query({ sort, limit: size, state, petId, placedBy, expand: "placement" })}`;
  const list = usePagedList(
    api,
    first,
    view,
    size,
    /** @returns {Promise<Order[]>} */
    async (/** @type {Order[]} */ found) => {
      await learnNames(found.map((o) => o.petId));
      return found;
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
  const shape = {
    header: ["id", "petId", "pet", "quantity", "shipDate", "complete", "placedAt", "placedById", "placedBy"],
    rows: async (/** @type {Order[]} */ found) => {
      const pets = await petsById(
        api,
        found.map((o) => o.petId),
      );
      return found.map((o) => [
        o.id,
        o.petId,
        pets.get(o.petId)?.name,
        o.quantity,
        o.shipDate,
        o.complete,
        o.placement?.at,
        o.placement?.by.id,
        o.placement?.by.label,
      ]);
    },
  };
  return { list, first, names, fresh, shape, filters };
};

/**
 * Runs an action on one order; the answer to show in its row.
 * @param {Api} api
 * @param {number} id
 * @param {"complete" | "cancel"} action
 * @returns {Promise<{ ok: true, order?: Order } | { ok: false, outcome: import("./ui.js").Outcome }>}
 */
const runAction = async (api, id, action) => {
  try {
    if (action === "complete") {
      const res = await api("PATCH", `/store/orders/${id}`, { body: { complete: true } });
      return { ok: true, order: res.body };
    }
    await api("DELETE", `/store/orders/${id}`);
    return { ok: true };
  } catch (e) {
    return { ok: false, outcome: refusal(e) };
  }
};

/**
 * @param {{ api: Api, bus: import("./events.js").Bus, canWrite: boolean, me: import("./api.js").Me,
 *   labels: Map<number, string> }} props
 */
export const Orders = ({ api, bus, canWrite, me, labels }) => {
  const view = useView("orders");
  const { list, first, names, fresh, shape, filters } = useOrderList(api, bus, view);
  const [confirming, setConfirming] = useState(
    /** @type {{ ids: number[], action: "complete" | "cancel", from: string, single: boolean } | undefined} */ (
      undefined
    ),
  );
  const [selected, setSelected] = useState(/** @type {Set<number>} */ (new Set()));
  const [outcomes, setOutcomes] = useState(/** @type {Record<number, import("./ui.js").Outcome | undefined>} */ ({}));
  const [report, setReport] = useState(
    /** @type {{ id: number, ok: boolean, message: string }[] | undefined} */ (undefined),
  );
  const focusAfter = useFocusAfter("#orders-title");
  // Another page or filter: what was selected is no longer in view.
  useEffect(() => setSelected(new Set()), [list.url]);
  const rows = list.items ?? [];
  const open = rows.filter((o) => !o.complete);
  const chosen = open.filter((o) => selected.has(o.id));

  /**
   * @param {number[]} ids
   * @param {"complete" | "cancel"} action
   * @param {boolean} single one order's own buttons, not the selection
   */
  const act = async (ids, action, single) => {
    setConfirming(undefined);
    /** @type {{ id: number, ok: boolean, message: string }[]} */
    const results = [];
    // Every order asked about gets its answer, even one the live events took off the page meanwhile.
    for (const id of ids) {
      const answer = await runAction(api, id, action);
      if (answer.ok) {
        const done = answer.order;
        list.update((current) =>
          done ? current.map((o) => (o.id === id ? { ...o, ...done } : o)) : current.filter((o) => o.id !== id),
        );
        results.push({ id, ok: true, message: `Order ${id} ${ACTIONS[action].done}.` });
        setOutcomes((current) => ({ ...current, [id]: undefined }));
      } else {
        results.push({ id, ok: false, message: `Order ${id} not ${ACTIONS[action].done}: ${answer.outcome.message}` });
        setOutcomes((current) => ({ ...current, [id]: answer.outcome }));
      }
    }
    setSelected(new Set());
    if (single) {
      const [result] = results;
      focusAfter(
        result?.ok ? (action === "complete" ? `#order-${ids[0]}` : "#orders-title") : `#${action}-order-${ids[0]}`,
      );
    } else {
      setReport(results);
      focusAfter("#bulk-report");
    }
  };
  /** @param {Order} order @param {boolean} on */
  const select = (order, on) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(order.id);
      else next.delete(order.id);
      return next;
    });
  const keyOptions = [...labels.entries()];
  const valueOf = (/** @type {Event} */ e) => /** @type {HTMLSelectElement} */ (e.currentTarget).value;
  const asking = confirming ? ACTIONS[confirming.action] : undefined;
  return html`<section aria-labelledby="orders-title">
    <h2 id="orders-title" tabindex="-1">Orders</h2>
    <div class="toolbar">
      <label for="order-state">Show</label>
      <select id="order-state" value=${filters.state} onChange=${(/** @type {Event} */ e) => view.set({ state: valueOf(e) })}>
        <option value="">Open and complete</option>
        <option value="open">Open only</option>
        <option value="complete">Complete only</option>
      </select>
      <${PetPicker} api=${api} petId=${filters.petId} onPick=${(/** @type {string} */ petId) => view.set({ pet: petId })} />
      ${
        keyOptions.length
          ? html`<label for="order-placed-by">Placed by</label>
            <select id="order-placed-by" value=${filters.placedBy} onChange=${(/** @type {Event} */ e) => view.set({ by: valueOf(e) })}>
              <option value="">Anyone</option>
              ${keyOptions.map(([id, label]) => html`<option value=${String(id)}>${label} (key #${id})</option>`)}
            </select>`
          : html`<label class="check"><input type="checkbox" id="order-mine" checked=${filters.placedBy === String(me.id)}
              onChange=${(/** @type {Event} */ e) => view.set({ by: /** @type {HTMLInputElement} */ (e.currentTarget).checked ? String(me.id) : "" })} />
              Placed with my key</label>`
      }
      <${ExportButton} api=${api} first=${first} shape=${shape} file="orders.csv" what="orders" id="orders-export" />
    </div>
    <div class="bulk" role="group" aria-label="Selected orders">
      <span id="selected-count">${chosen.length ? `${orders(chosen.length)} selected` : "None selected"}</span>
      <button type="button" id="bulk-complete" disabled=${!canWrite} aria-disabled=${chosen.length ? undefined : "true"}
        onClick=${() => chosen.length && setConfirming({ ids: chosen.map((o) => o.id), action: "complete", from: "#bulk-complete", single: false })}>Complete selected</button>
      <button type="button" id="bulk-cancel" aria-disabled=${chosen.length ? undefined : "true"}
        onClick=${() => chosen.length && setConfirming({ ids: chosen.map((o) => o.id), action: "cancel", from: "#bulk-cancel", single: false })}>Cancel selected</button>
    </div>
    ${
      report
        ? html`<div class="report" id="bulk-report" tabindex="-1" role="status">
            <p>${report.filter((r) => r.ok).length} of ${orders(report.length)} done.</p>
            <ul>${report.map((r) => html`<li key=${r.id} class=${r.ok ? "ok" : "error"}>${r.message}</li>`)}</ul>
            <button type="button" onClick=${() => setReport(undefined)}>Dismiss</button>
          </div>`
        : null
    }
    ${
      confirming && asking
        ? html`<${Confirm}
            question=${asking.ask(confirming.single ? `order ${confirming.ids[0]}` : orders(confirming.ids.length))}
            detail=${asking.detail} yes=${asking.yes} no=${asking.no}
            onYes=${() => act(confirming.ids, confirming.action, confirming.single)}
            onNo=${() => {
              setConfirming(undefined);
              focusAfter(confirming.from);
            }} />`
        : null
    }
    ${loaded(
      list,
      (/** @type {Order[]} */ shown) => html`<table id="orders" class="cards">
          <caption class="visually-hidden">Orders, ${filters.sort === "-id" ? "newest" : "oldest"} first</caption>
          <thead><tr>
            <th scope="col" class="select">
              <input type="checkbox" id="select-all" aria-label="Select every open order on this page"
                checked=${open.length > 0 && chosen.length === open.length} disabled=${open.length === 0}
                onChange=${(/** @type {Event} */ e) =>
                  setSelected(
                    /** @type {HTMLInputElement} */ (e.currentTarget).checked
                      ? new Set(open.map((o) => o.id))
                      : new Set(),
                  )} />
            </th>
            <${SortHeader} label="Order" sort=${filters.sort} options=${["-id", "id"]} onSort=${(/** @type {string} */ sort) => view.set({ sort: sort === "-id" ? "" : sort })} />
            <th scope="col">Pet</th><th scope="col">Placed by</th><th scope="col">Placed</th>
            <th scope="col">Quantity</th><th scope="col">Ship date</th><th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            ${shown.length === 0 ? html`<tr><td colspan="9">No orders.</td></tr>` : null}
            ${shown.map(
              (order) => html`<tr key=${order.id} data-order-id=${order.id} class=${fresh.has(order.id) ? "fresh" : ""}>
                <td class="select">${
                  order.complete
                    ? null
                    : html`<input type="checkbox" aria-label=${`Select order ${order.id}`} checked=${selected.has(order.id)}
                        onChange=${(/** @type {Event} */ e) => select(order, /** @type {HTMLInputElement} */ (e.currentTarget).checked)} />`
                }</td>
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
                      : html`<button id=${`complete-order-${order.id}`} disabled=${!canWrite} onClick=${() => setConfirming({ ids: [order.id], action: "complete", from: `#complete-order-${order.id}`, single: true })} aria-label=${`Complete order ${order.id}`}>Complete</button>
                          <button id=${`cancel-order-${order.id}`} onClick=${() => setConfirming({ ids: [order.id], action: "cancel", from: `#cancel-order-${order.id}`, single: true })} aria-label=${`Cancel order ${order.id}`}>Cancel</button>`
                  }
                  <${OutcomeLine} outcome=${outcomes[order.id]} />
                </td>
              </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} list=${list} what="orders" onSize=${(/** @type {number} */ size) => view.set({ size: size === 20 ? "" : String(size) })} id="orders-size" />`,
    )}
  </section>`;
};
