// @ts-check
// The view lives in the URL's fragment (never the key; the service refuses query parameters it does not know, and
// the fragment never leaves the browser): the tab, and each list's filters, sort, search, page size and page cursors.
// A change a person makes is a history entry, so Back and Forward move between views; a reload or a copied link opens
// the same view.

import { useEffect, useState } from "preact/hooks";

/** @type {Set<() => void>} */
const listeners = new Set();
/** Counts Back/Forward moves: fields that keep text of their own take the URL's again when it changes. */
let moves = 0;
const notify = () => listeners.forEach((listener) => listener());
const moved = () => {
  moves += 1;
  notify();
};
addEventListener("popstate", moved);
// A fragment edited by hand.
addEventListener("hashchange", moved);

const current = () => new URLSearchParams(location.hash.slice(1));

/** @typedef {Record<string, string | string[] | undefined>} Changes */

/**
 * Sets these parameters (an empty value or list removes one) as a new history entry, or in place with `replace`
 * (typing in a search field should not fill the history).
 * @param {Changes} changes
 * @param {{ replace?: boolean }} [options]
 */
export const navigate = (changes, options = {}) => {
  const params = current();
  for (const [name, value] of Object.entries(changes)) {
    params.delete(name);
    const values = Array.isArray(value) ? value : value === undefined || value === "" ? [] : [value];
    for (const each of values) params.append(name, each);
  }
  const fragment = params.toString();
  const url = `${location.pathname}${location.search}${fragment ? `#${fragment}` : ""}`;
  if (fragment === location.hash.slice(1)) return;
  if (options.replace) history.replaceState(history.state, "", url);
  else history.pushState(null, "", url);
  notify();
};

/** The fragment's parameters, re-read whenever they change; `moves` as above. */
export const useUrl = () => {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return { params: current(), moves };
};

/**
 * @typedef {{ get: (name: string, fallback?: string) => string, getAll: (name: string) => string[],
 *   set: (changes: Changes, options?: { replace?: boolean, keepPage?: boolean }) => void, moves: number }} View
 */

/**
 * One list's part of the URL, its names under `prefix` (`pets.sort`). A change of filter, sort or size starts over at
 * the first page: the page cursors go unless `keepPage`.
 * @param {string} prefix
 * @returns {View}
 */
export const useView = (prefix) => {
  const { params, moves: count } = useUrl();
  return {
    get: (name, fallback = "") => params.get(`${prefix}.${name}`) ?? fallback,
    getAll: (name) => params.getAll(`${prefix}.${name}`),
    set: (changes, options = {}) =>
      navigate(
        {
          ...(options.keepPage ? {} : { [`${prefix}.page`]: undefined }),
          ...Object.fromEntries(Object.entries(changes).map(([name, value]) => [`${prefix}.${name}`, value])),
        },
        options,
      ),
    moves: count,
  };
};
