// @ts-check
// Inventory: the stock list, a page at a time in the service's order (pet id, or name), searched by name, with the
// pets' names and categories; stock set inline with If-Match, and undone the same way.

import { useEffect, useRef, useState } from "preact/hooks";
import { explain, petsById, query } from "./api.js";
import { ExportButton } from "./export.js";
import { Pager, SearchField, SortHeader, loaded, sizeOf, usePagedList } from "./paging.js";
import { check, useRules } from "./rules.js";
import { Alert, FieldError, OutcomeLine, StatusFilter, html, useFocusAfter } from "./ui.js";
import { useView } from "./url-state.js";

const LOW_STOCK = 2;

/**
 * @typedef {import("./api.js").Api} Api
 * @typedef {import("./api.js").Category} Category
 * @typedef {import("./api.js").InventoryItem & { name: string, categoryId: number | undefined }} Row
 */

/**
 * @param {{ api: Api, row: Row, onDone: (item: import("./api.js").InventoryItem, etag: string | null, was: number) => void,
 *   onCancel: () => void }} props
 */
const StockEditor = ({ api, row, onDone, onCancel }) => {
  const rules = useRules();
  const [state, setState] = useState(
    /** @type {{ loading?: boolean, etag?: string | null, value?: string, error?: string, newer?: number, tried?: boolean }} */ ({
      loading: true,
    }),
  );
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  useEffect(() => {
    api("GET", `/store/inventory/${row.petId}`)
      .then((res) => setState({ etag: res.etag, value: String(res.body.quantity) }))
      .catch((e) => setState({ error: explain(e) }));
  }, []);
  useEffect(() => {
    if (!state.loading) input.current?.focus();
  }, [state.loading]);
  const problem = check(rules, "InventoryUpdate", "quantity", state.value ?? "", "Stock");
  /** @param {Event} event */
  const save = async (event) => {
    event.preventDefault();
    if (problem) {
      setState({ ...state, tried: true });
      input.current?.focus();
      return;
    }
    try {
      const res = await api("PUT", `/store/inventory/${row.petId}`, {
        body: { quantity: Number(state.value) },
        ifMatch: state.etag,
      });
      onDone(res.body, res.etag, Number(state.newer ?? row.quantity));
    } catch (e) {
      if (/** @type {{ status?: number }} */ (e).status === 412) {
        const fresh = await api("GET", `/store/inventory/${row.petId}`).catch(() => undefined);
        setState({
          ...state,
          etag: fresh?.etag,
          error: `Not saved: the stock changed meanwhile. It is now ${fresh?.body.quantity ?? "unknown"}. Save again to set ${state.value} over it.`,
          newer: fresh?.body.quantity,
        });
      } else setState({ ...state, error: explain(e) });
      input.current?.focus();
    }
  };
  if (state.loading) return html`<span>Loading…</span>`;
  const id = `stock-${row.petId}`;
  const shown = state.tried ? problem : "";
  return html`<form class="inline" novalidate onSubmit=${save}
    onKeyDown=${(/** @type {KeyboardEvent} */ e) => e.key === "Escape" && onCancel()}>
    <label for=${id} class="visually-hidden">New stock for ${row.name}</label>
    <input id=${id} ref=${input} type="number" inputmode="numeric" value=${state.value ?? ""}
      aria-invalid=${shown ? "true" : undefined} aria-describedby=${shown ? `${id}-problem` : undefined}
      onInput=${(/** @type {Event} */ e) =>
        setState({ ...state, value: /** @type {HTMLInputElement} */ (e.currentTarget).value, error: "" })} />
    <button type="submit">Save</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
    <${FieldError} id=${`${id}-problem`} message=${shown} />
    ${state.newer !== undefined ? html`<span class="newer">Newer value: <strong>${state.newer}</strong></span>` : null}
    <${Alert} message=${state.error} />
  </form>`;
};

/** @param {Api} api */
const withNames =
  (api) =>
  /** @returns {Promise<Row[]>} */
  async (/** @type {import("./api.js").InventoryItem[]} */ items) => {
    const pets = await petsById(
      api,
      items.map((item) => item.petId),
    );
    return items.map((item) => ({
      ...item,
      name: pets.get(item.petId)?.name ?? `#${item.petId}`,
      categoryId: pets.get(item.petId)?.categoryId,
    }));
  };

/**
 * The stock list as the view asks for it, kept current by the event stream.
 * @param {Api} api
 * @param {import("./events.js").Bus} bus
 * @param {import("./url-state.js").View} view
 */
const useStockList = (api, bus, view) => {
  const size = sizeOf(view);
  const first = `/store/inventory${query({ sort: view.get("sort"), limit: size, name: view.get("name"), status: view.get("status") })}`;
  const list = usePagedList(api, first, view, size, withNames(api));
  useEffect(
    () =>
      bus.on((event) => {
        if (event.type === "inventory.changed") {
          list.update((rows) =>
            rows.map((row) =>
              row.petId === event.data.petId
                ? { ...row, quantity: "quantity" in event.data ? event.data.quantity : row.quantity + event.data.delta }
                : row,
            ),
          );
        }
        if (event.type === "pet.status_changed") {
          list.update((rows) =>
            rows.map((row) => (row.petId === event.data.petId ? { ...row, status: event.data.to } : row)),
          );
        }
      }),
    [],
  );
  return { list, first };
};

/**
 * @param {{ api: Api, bus: import("./events.js").Bus, canWrite: boolean, categories: Map<number, Category> }} props
 */
export const Inventory = ({ api, bus, canWrite, categories }) => {
  const view = useView("inventory");
  const { list, first } = useStockList(api, bus, view);
  const [editing, setEditing] = useState(/** @type {number | undefined} */ (undefined));
  const [outcomes, setOutcomes] = useState(/** @type {Record<number, import("./ui.js").Outcome | undefined>} */ ({}));
  const focusAfter = useFocusAfter("#inventory-title");
  const status = view.get("status");
  const sort = view.get("sort", "id");
  const categoryName = (/** @type {number | undefined} */ id) =>
    id === undefined ? "" : (categories.get(id)?.name ?? `#${id}`);
  /** @param {import("./api.js").InventoryItem} item */
  const showItem = (item) =>
    list.update((current) =>
      current.map((r) => (r.petId === item.petId ? { ...r, quantity: item.quantity, status: item.status } : r)),
    );
  /**
   * Sets the stock back to what it was, if nobody changed it since (If-Match with the save's own tag).
   * @param {Row} row @param {number} was @param {string | null} etag
   */
  const undo = async (row, was, etag) => {
    try {
      const res = await api("PUT", `/store/inventory/${row.petId}`, { body: { quantity: was }, ifMatch: etag });
      showItem(res.body);
      setOutcomes((o) => ({
        ...o,
        [row.petId]: { kind: "done", message: `Stock of ${row.name} set back to ${was}.` },
      }));
    } catch (e) {
      const message =
        /** @type {{ status?: number }} */ (e).status === 412
          ? `Not undone: the stock of ${row.name} changed again meanwhile.`
          : explain(e);
      setOutcomes((o) => ({ ...o, [row.petId]: { kind: "error", message } }));
    }
    focusAfter(`#set-stock-${row.petId}`);
  };
  const shape = {
    header: ["petId", "name", "categoryId", "category", "status", "quantity"],
    rows: async (/** @type {import("./api.js").InventoryItem[]} */ items) =>
      (await withNames(api)(items)).map((r) => [
        r.petId,
        r.name,
        r.categoryId,
        categoryName(r.categoryId),
        r.status,
        r.quantity,
      ]),
  };
  return html`<section aria-labelledby="inventory-title">
    <h2 id="inventory-title" tabindex="-1">Inventory</h2>
    <div class="toolbar">
      <${SearchField} id="inventory-search" label="Search pets by name" view=${view} name="name" />
      <${StatusFilter} id="inventory-status" value=${status} onChange=${(/** @type {string} */ value) => view.set({ status: value })} />
      <${ExportButton} api=${api} first=${first} shape=${shape} file="inventory.csv" what="items" id="inventory-export" />
    </div>
    ${loaded(
      list,
      (/** @type {Row[]} */ rows) => html`<table id="inventory" class="cards">
          <caption class="visually-hidden">Stock of each pet, ${sort === "name" ? "by name" : sort === "-id" ? "newest pet first" : "in pet id order"}</caption>
          <thead><tr>
            <${SortHeader} label="Pet" sort=${sort} options=${["name"]} onSort=${(/** @type {string} */ value) => view.set({ sort: value })} />
            <${SortHeader} label="Pet id" sort=${sort} options=${["id", "-id"]} onSort=${(/** @type {string} */ value) => view.set({ sort: value === "id" ? "" : value })} />
            <th scope="col">Category</th><th scope="col">Status</th><th scope="col">Stock</th><th scope="col">Set stock</th>
          </tr></thead>
          <tbody>
            ${rows.length === 0 ? html`<tr><td colspan="6">No pets${status ? ` with status ${status}` : ""}${view.get("name") ? ` named ${view.get("name")}…` : ""}.</td></tr>` : null}
            ${rows.map(
              (
                row,
              ) => html`<tr key=${row.petId} data-pet-id=${row.petId} class=${row.quantity <= LOW_STOCK ? "low" : ""}>
                <th scope="row">${row.name}</th>
                <td data-label="Pet id" class="id">#${row.petId}</td>
                <td data-label="Category" class="category">${row.categoryId === undefined ? "—" : categoryName(row.categoryId)}</td>
                <td data-label="Status"><span class=${`status ${row.status}`}>${row.status}</span></td>
                <td data-label="Stock" class="stock">${row.quantity}${row.quantity <= LOW_STOCK ? html` <span class="badge">low</span>` : null}</td>
                <td data-label="Set stock">
                  ${
                    editing === row.petId
                      ? html`<${StockEditor}
                        api=${api}
                        row=${row}
                        onCancel=${() => {
                          setEditing(undefined);
                          focusAfter(`#set-stock-${row.petId}`);
                        }}
                        onDone=${(
                          /** @type {import("./api.js").InventoryItem} */ item,
                          /** @type {string | null} */ etag,
                          /** @type {number} */ was,
                        ) => {
                          showItem(item);
                          setEditing(undefined);
                          setOutcomes((o) => ({
                            ...o,
                            [row.petId]: {
                              kind: "done",
                              message: `Stock of ${row.name} set to ${item.quantity} (was ${was}).`,
                              undo: () => undo(row, was, etag),
                            },
                          }));
                          focusAfter(`#set-stock-${row.petId}`);
                        }}
                      />`
                      : html`<button id=${`set-stock-${row.petId}`} disabled=${!canWrite} onClick=${() => {
                          setOutcomes((o) => ({ ...o, [row.petId]: undefined }));
                          setEditing(row.petId);
                        }} aria-label=${`Set stock of ${row.name}`}>Set stock</button>`
                  }
                  <${OutcomeLine} outcome=${outcomes[row.petId]} />
                </td>
              </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} list=${list} what="stock" onSize=${(/** @type {number} */ size) => view.set({ size: size === 20 ? "" : String(size) })} id="inventory-size" />`,
    )}
  </section>`;
};
