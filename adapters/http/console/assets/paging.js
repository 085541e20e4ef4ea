// @ts-check
// Lists page with the service: `limit`, and the `Link: rel="next"` URL it answers (keyset paging: no totals and no
// "previous" link, so the pages seen are kept to go back).

import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { explain, nextLink } from "./api.js";
import { Alert, html } from "./ui.js";

export const PAGE_SIZES = [10, 20, 50, 100];

/**
 * @template T
 * @typedef {{ items: T[] | undefined, error: string, page: number, hasNext: boolean, hasPrevious: boolean,
 *   next: () => void, previous: () => void, reload: () => Promise<void>,
 *   update: (change: (items: T[]) => T[]) => void }} PagedList
 */

/**
 * One page of a list at a time. `first` is the first page's URL (filters, sort and limit in it): a new one starts
 * over at page 1. `enrich` adds what the rows show from elsewhere (names), once per page.
 * @template T
 * @param {import("./api.js").Api} api
 * @param {string} first
 * @param {(items: any[]) => Promise<T[]>} [enrich]
 * @returns {PagedList<T>}
 */
export const usePagedList = (api, first, enrich) => {
  const [pages, setPages] = useState(/** @type {string[]} */ ([first]));
  // What is shown: a page's items, which page they are and the service's link to the next; set together.
  const [shown, setShown] = useState(
    /** @type {{ items: T[] | undefined, page: number, next: string | undefined }} */ ({
      items: undefined,
      page: 1,
      next: undefined,
    }),
  );
  const [error, setError] = useState("");
  const asked = useRef(0);
  const current = pages[pages.length - 1] ?? first;
  const latest = useRef({ url: current, page: pages.length });
  latest.current = { url: current, page: pages.length };
  const load = useCallback(
    async (/** @type {string} */ url, /** @type {number} */ page) => {
      const mine = ++asked.current;
      try {
        const res = await api("GET", url);
        const rows = enrich ? await enrich(res.body) : res.body;
        // A later request (another page, another filter, a reload) wins over an earlier one that answers late.
        if (mine !== asked.current) return;
        setShown({ items: rows, page, next: nextLink(res.link) });
        setError("");
      } catch (e) {
        if (mine === asked.current) setError(explain(e));
      }
    },
    [api],
  );
  useEffect(() => setPages([first]), [first]);
  useEffect(() => void load(current, pages.length), [current]);
  const { next } = shown;
  return {
    items: shown.items,
    error,
    page: shown.page,
    hasNext: next !== undefined,
    hasPrevious: shown.page > 1,
    next: () => next !== undefined && setPages((stack) => [...stack.slice(0, shown.page), next]),
    previous: () => setPages((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)),
    // The page asked for last, which a filter may have changed since this render.
    reload: () => load(latest.current.url, latest.current.page),
    update: (change) => setShown((s) => (s.items ? { ...s, items: change(s.items) } : s)),
  };
};

/**
 * Previous / next and the page size, under a table. The buttons stay focusable at the ends (aria-disabled), so
 * the focus never drops to the page when the last page is reached.
 * @param {{ list: PagedList<unknown>, what: string, size: number, onSize: (size: number) => void, id: string }} props
 */
export const Pager = ({
  list,
  what,
  size,
  onSize,
  id,
}) => html`<div class="pager" role="group" aria-label=${`Pages of ${what}`}>
  <button type="button" aria-disabled=${list.hasPrevious ? undefined : "true"} aria-label=${`Previous page of ${what}`}
    onClick=${() => list.hasPrevious && list.previous()}>‹ Previous</button>
  <span class="page-number" aria-live="polite">Page ${list.page}</span>
  <button type="button" aria-disabled=${list.hasNext ? undefined : "true"} aria-label=${`Next page of ${what}`}
    onClick=${() => list.hasNext && list.next()}>Next ›</button>
  <label for=${id}>Per page</label>
  <select id=${id} value=${String(size)} onChange=${(/** @type {Event} */ e) => onSize(Number(/** @type {HTMLSelectElement} */ (e.currentTarget).value))}>
    ${PAGE_SIZES.map((n) => html`<option value=${String(n)}>${n}</option>`)}
  </select>
</div>`;

/**
 * A column heading that sorts, when the service sorts by it: `options` are the API's sort values it cycles through
 * (e.g. ["id", "-id"]).
 * @param {{ label: string, sort: string, options: string[], onSort: (sort: string) => void }} props
 */
export const SortHeader = ({ label, sort, options, onSort }) => {
  const at = options.indexOf(sort);
  const direction = at < 0 ? "none" : sort.startsWith("-") ? "descending" : "ascending";
  const following = options[(at + 1) % options.length] ?? options[0] ?? sort;
  const arrow = direction === "ascending" ? "▲" : direction === "descending" ? "▼" : "↕";
  return html`<th scope="col" aria-sort=${direction}>
    <button type="button" class="sort" onClick=${() => onSort(following)}
      aria-label=${`${label}: sort ${following.startsWith("-") ? "descending" : "ascending"}`}>
      ${label} <span aria-hidden="true">${arrow}</span>
    </button>
  </th>`;
};

/**
 * A value that follows `value` once it has stopped changing for `ms`: for search fields.
 * @template T
 * @param {T} value
 * @param {number} ms
 */
export const useSettled = (value, ms) => {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
};

/**
 * A list's page once loaded: its refusal in place, "Loading…" until the first answer, then `table(items)`.
 * @template T
 * @param {PagedList<T>} list
 * @param {(items: T[]) => unknown} table
 */
export const loaded = (list, table) => html`<${Alert} message=${list.error} />
  ${list.items === undefined ? (list.error ? null : html`<p>Loading…</p>`) : table(list.items)}`;
