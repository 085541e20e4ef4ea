// @ts-check
// Inventory: the stock list, a page at a time in the service's order (pet id), with the pets' names and categories;
// stock set inline with If-Match.

import { useEffect, useRef, useState } from "preact/hooks";
import { explain, petsById, query } from "./api.js";
import { Pager, loaded, usePagedList } from "./paging.js";
import { check, useRules } from "./rules.js";
import { Alert, FieldError, StatusFilter, html, useFocusAfter } from "./ui.js";

const LOW_STOCK = 2;

/**
 * @typedef {import("./api.js").Api} Api
 * @typedef {import("./api.js").Category} Category
 * @typedef {import("./api.js").InventoryItem & { name: string, categoryId: number | undefined }} Row
 */

/**
 * @param {{ api: Api, row: Row, onDone: (item: import("./api.js").InventoryItem) => void, onCancel: () => void }} props
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
      onDone(res.body);
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

/**
 * @param {{ api: Api, bus: import("./events.js").Bus, canWrite: boolean, categories: Map<number, Category> }} props
 */
export const Inventory = ({ api, bus, canWrite, categories }) => {
  const [status, setStatus] = useState("");
  const [size, setSize] = useState(20);
  const [editing, setEditing] = useState(/** @type {number | undefined} */ (undefined));
  const [said, setSaid] = useState("");
  const focusAfter = useFocusAfter("#inventory-title");
  const list = usePagedList(
    api,
    `/store/inventory${query({ limit: size, status })}`,
    /** @returns {Promise<Row[]>} */
    async (items) => {
      const pets = await petsById(
        api,
        items.map((/** @type {import("./api.js").InventoryItem} */ item) => item.petId),
      );
      return items.map((/** @type {import("./api.js").InventoryItem} */ item) => ({
        ...item,
        name: pets.get(item.petId)?.name ?? `#${item.petId}`,
        categoryId: pets.get(item.petId)?.categoryId,
      }));
    },
  );
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
  return html`<section aria-labelledby="inventory-title">
    <h2 id="inventory-title" tabindex="-1">Inventory</h2>
    <div class="toolbar">
      <${StatusFilter} id="inventory-status" value=${status} onChange=${setStatus} />
    </div>
    <p class="visually-hidden" role="status" aria-live="polite">${said}</p>
    ${loaded(
      list,
      (/** @type {Row[]} */ rows) => html`<table id="inventory" class="cards">
          <caption class="visually-hidden">Stock of each pet, in pet id order</caption>
          <thead><tr><th scope="col">Pet</th><th scope="col">Category</th><th scope="col">Status</th><th scope="col">Stock</th><th scope="col">Set stock</th></tr></thead>
          <tbody>
            ${rows.length === 0 ? html`<tr><td colspan="5">No pets${status ? ` with status ${status}` : ""}.</td></tr>` : null}
            ${rows.map(
              (
                row,
              ) => html`<tr key=${row.petId} data-pet-id=${row.petId} class=${row.quantity <= LOW_STOCK ? "low" : ""}>
                <th scope="row">${row.name} <span class="id">#${row.petId}</span></th>
                <td data-label="Category" class="category">${row.categoryId === undefined ? "—" : (categories.get(row.categoryId)?.name ?? `#${row.categoryId}`)}</td>
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
                        onDone=${(/** @type {import("./api.js").InventoryItem} */ item) => {
                          list.update((current) =>
                            current.map((r) =>
                              r.petId === item.petId ? { ...r, quantity: item.quantity, status: item.status } : r,
                            ),
                          );
                          setEditing(undefined);
                          setSaid(`Stock of ${row.name} set to ${item.quantity}`);
                          focusAfter(`#set-stock-${row.petId}`);
                        }}
                      />`
                      : html`<button id=${`set-stock-${row.petId}`} disabled=${!canWrite} onClick=${() => setEditing(row.petId)} aria-label=${`Set stock of ${row.name}`}>Set stock</button>`
                  }
                </td>
              </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} list=${list} what="stock" size=${size} onSize=${setSize} id="inventory-size" />`,
    )}
  </section>`;
};
