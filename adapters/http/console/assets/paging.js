// @ts-check
// Lists page with the service: `limit`, and the `Link: rel="next"` URL it answers (keyset paging: no "previous" link,
// so the cursors of the pages seen are kept, in the URL, to go back and to reload the same page).

import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { nextLink } from "./api.js";
import { OutcomeLine, html, refusal } from "./ui.js";

export const PAGE_SIZES = [10, 20, 50, 100];

/**
 * @template T
 * @typedef {{ items: T[] | undefined, outcome: import("./ui.js").Outcome | undefined, fromPager: boolean,
 *   page: number, size: number, hasNext: boolean, hasPrevious: boolean, url: string,
 *   next: () => void, previous: () => void, reload: () => Promise<void>,
 *   update: (change: (items: T[]) => T[]) => void }} PagedList
 */

/**
 * The part of a next-page link that moves on (`after`, `afterName`): one page's cursor.
 * @param {string} link
 */
const cursorOf = (link) =>
  new URLSearchParams(
    [...new URL(link, location.origin).searchParams].filter(([name]) => name.startsWith("after")),
  ).toString();

/**
 * @param {string} first
 * @param {string | undefined} cursor
 */
const pageUrl = (first, cursor) => (cursor ? `${first}${first.includes("?") ? "&" : "?"}${cursor}` : first);

/**
 * One page of a list at a time. `first` is the first page's URL (filters, sort and limit in it); the view keeps the
 * cursors of the pages after it (`page` in the URL), which a change of `first` clears. `enrich` adds what the rows
 * show from elsewhere (names), once per page.
 * @template T
 * @param {import("./api.js").Api} api
 * @param {string} first
 * @param {import("./url-state.js").View} view
 * @param {number} size
 * @param {(items: any[]) => Promise<T[]>} [enrich]
 * @returns {PagedList<T>}
 */
export const usePagedList = (api, first, view, size, enrich) => {
  const cursors = view.getAll("page");
  const url = pageUrl(first, cursors.at(-1));
  // What is shown: a page's items and the service's link to the next; set together.
  const [shown, setShown] = useState(
    /** @type {{ items: T[] | undefined, next: string | undefined, page: number }} */ ({
      items: undefined,
      next: undefined,
      page: 1,
    }),
  );
  const [outcome, setOutcome] = useState(/** @type {import("./ui.js").Outcome | undefined} */ (undefined));
  const asked = useRef(0);
  // Whether the load under way was asked for by the pager: its refusal then shows beside the pager.
  const byPager = useRef(false);
  const [fromPager, setFromPager] = useState(false);
  const page = cursors.length + 1;
  const latest = useRef({ url, page });
  latest.current = { url, page };
  const load = useCallback(
    async (/** @type {string} */ target, /** @type {number} */ number) => {
      const mine = ++asked.current;
      const pager = byPager.current;
      try {
        const res = await api("GET", target);
        const rows = enrich ? await enrich(res.body) : res.body;
        // A later request (another page, another filter, a reload) wins over an earlier one that answers late.
        if (mine !== asked.current) return;
        setShown({ items: rows, next: nextLink(res.link), page: number });
        setOutcome(undefined);
      } catch (e) {
        if (mine !== asked.current) return;
        setOutcome(refusal(e));
        setFromPager(pager);
      }
    },
    [api],
  );
  useEffect(() => {
    void load(url, page);
    byPager.current = false;
  }, [url]);
  const { next } = shown;
  return {
    items: shown.items,
    outcome,
    fromPager,
    // The page shown: a page refused stays the one asked for in the URL, not the one on the screen.
    page: shown.page,
    size,
    url,
    hasNext: next !== undefined,
    hasPrevious: cursors.length > 0,
    next: () => {
      if (next === undefined) return;
      byPager.current = true;
      view.set({ page: [...cursors.slice(0, shown.page - 1), cursorOf(next)] }, { keepPage: true });
    },
    previous: () => {
      byPager.current = true;
      view.set({ page: cursors.slice(0, -1) }, { keepPage: true });
    },
    // The page asked for last, which a filter may have changed since this render.
    reload: () => load(latest.current.url, latest.current.page),
    update: (change) => setShown((s) => (s.items ? { ...s, items: change(s.items) } : s)),
  };
};

/**
 * Which rows this page shows, and of how many: the count is known on the last page; before it, "more than".
 * @param {PagedList<unknown>} list
 */
const rangeOf = (list) => {
  const shown = list.items?.length ?? 0;
  const from = (list.page - 1) * list.size;
  if (shown === 0) return list.page === 1 ? "None" : "No more";
  const range = `${from + 1}–${from + shown}`;
  return list.hasNext ? `${range} of more than ${from + shown}` : `${range} of ${from + shown}`;
};

/**
 * Previous / next, the rows shown of how many, and the page size, under a table; a refused page load says why
 * here, beside the button that asked for it, and tries again when its wait is over. The buttons stay focusable at
 * the ends (aria-disabled), so the focus never drops to the page when the last page is reached.
 * @param {{ list: PagedList<unknown>, what: string, onSize: (size: number) => void, id: string }} props
 */
export const Pager = ({
  list,
  what,
  onSize,
  id,
}) => html`<div class="pager" role="group" aria-label=${`Pages of ${what}`}>
  <button type="button" aria-disabled=${list.hasPrevious ? undefined : "true"} aria-label=${`Previous page of ${what}`}
    onClick=${() => list.hasPrevious && list.previous()}>‹ Previous</button>
  <span class="page-number" aria-live="polite">Page ${list.page}</span>
  <button type="button" aria-disabled=${list.hasNext ? undefined : "true"} aria-label=${`Next page of ${what}`}
    onClick=${() => list.hasNext && list.next()}>Next ›</button>
  <span class="range" id=${`${id}-range`}>${list.items ? rangeOf(list) : ""}</span>
  <label for=${id}>Per page</label>
  <select id=${id} value=${String(list.size)} onChange=${(/** @type {Event} */ e) => onSize(Number(/** @type {HTMLSelectElement} */ (e.currentTarget).value))}>
    ${PAGE_SIZES.map((n) => html`<option value=${String(n)}>${n}</option>`)}
  </select>
  <div class="pager-outcome">
    ${list.fromPager ? html`<${OutcomeLine} outcome=${list.outcome} onWaited=${list.reload} />` : null}
  </div>
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
 * A list's page once loaded: a refusal the pager did not cause in place, "Loading…" until the first answer, then
 * `table(items)`.
 * @template T
 * @param {PagedList<T>} list
 * @param {(items: T[]) => unknown} table
 */
export const loaded = (
  list,
  table,
) => html`${list.fromPager ? null : html`<${OutcomeLine} outcome=${list.outcome} onWaited=${list.reload} />`}
  ${list.items === undefined ? (list.outcome ? null : html`<p>Loading…</p>`) : table(list.items)}`;

/**
 * The page size in the view, one of PAGE_SIZES (20 when absent or odd).
 * @param {import("./url-state.js").View} view
 */
export const sizeOf = (view) => {
  const size = Number(view.get("size", "20"));
  return PAGE_SIZES.includes(size) ? size : 20;
};

/**
 * A search field whose settled text goes into the view (in place: typing makes no history entries); Back and Forward
 * give it the URL's text again.
 * @param {{ id: string, label: string, view: import("./url-state.js").View, name: string }} props
 */
const SearchInput = ({ id, view, name }) => {
  const [text, setText] = useState(() => view.get(name));
  const settled = useSettled(text.trim(), 250);
  useEffect(() => {
    if (settled !== view.get(name)) view.set({ [name]: settled }, { replace: true });
  }, [settled]);
  return html`<input id=${id} type="search" value=${text} autocomplete="off"
    onInput=${(/** @type {Event} */ e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />`;
};

/** @param {{ id: string, label: string, view: import("./url-state.js").View, name: string }} props */
export const SearchField = (props) => html`<label for=${props.id}>${props.label}</label>
  <${SearchInput} key=${props.view.moves} ...${props} />`;
