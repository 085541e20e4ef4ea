// @ts-check
// Pets and categories: the section's frame. Each list has its own hook and components (categories.js, pets.js); what
// they share (the API, the rules, one editor or confirmation open at a time, the outcomes shown in rows, where the
// focus goes) is handed to them as one context.

import { useState } from "preact/hooks";
import { Categories, useCategoryList } from "./categories.js";
import { Pets, usePetList } from "./pets.js";
import { useRules } from "./rules.js";
import { html, useFocusAfter } from "./ui.js";
import { useView } from "./url-state.js";

/**
 * @typedef {import("./ui.js").Outcome} Outcome
 * @typedef {{ api: import("./api.js").Api, rules: import("./rules.js").Rules | undefined, canWrite: boolean,
 *   categories: Map<number, import("./api.js").Category>, editing: string | undefined,
 *   setEditing: (key: string | undefined) => void, confirming: string | undefined,
 *   setConfirming: (key: string | undefined) => void,
 *   outcomes: { get: (key: string) => Outcome | undefined, set: (key: string, outcome: Outcome | undefined) => void },
 *   begin: () => void, say: (message: string) => void, done: (key: string, message: string, undo?: () => Promise<void>) => void,
 *   focusAfter: (selector: string) => void }} CatalogContext
 */

/**
 * Outcomes shown in rows, one at a time: anything done next clears the last (it no longer applies).
 * @returns {CatalogContext["outcomes"] & { clear: () => void }}
 */
const useRowOutcome = () => {
  const [shown, setShown] = useState(/** @type {{ key: string, outcome: Outcome } | undefined} */ (undefined));
  return {
    get: (key) => (shown?.key === key ? shown.outcome : undefined),
    set: (key, outcome) => setShown(outcome ? { key, outcome } : undefined),
    clear: () => setShown(undefined),
  };
};

/**
 * @param {{ api: import("./api.js").Api, canWrite: boolean, categories: Map<number, import("./api.js").Category>,
 *   onCategoriesChanged: () => void }} props
 */
export const Catalog = ({ api, canWrite, categories, onCategoriesChanged }) => {
  const petView = useView("pets");
  const categoryView = useView("categories");
  const pets = usePetList(api, petView);
  const categoryList = useCategoryList(api, categoryView);
  const [editing, setEditing] = useState(/** @type {string | undefined} */ (undefined));
  const [confirming, setConfirming] = useState(/** @type {string | undefined} */ (undefined));
  const [said, setSaid] = useState("");
  const outcomes = useRowOutcome();
  const focusAfter = useFocusAfter("#catalog-title");
  /** @type {CatalogContext} */
  const ctx = {
    api,
    rules: useRules(),
    canWrite,
    categories,
    editing,
    setEditing,
    confirming,
    setConfirming,
    outcomes,
    begin: outcomes.clear,
    say: setSaid,
    done: (key, message, undo) => {
      setSaid(message);
      outcomes.set(key, {
        kind: "done",
        message,
        // After an undo the focus goes to the row's first button: Undo itself is gone.
        undo: undo && (() => void undo().then(() => focusAfter(`#rename-${key}`))),
      });
    },
    focusAfter,
  };
  const categoriesChanged = async () => {
    await categoryList.reload();
    onCategoriesChanged();
  };
  return html`<section aria-labelledby="catalog-title">
    <h2 id="catalog-title" tabindex="-1">Pets and categories</h2>
    <p class="visually-hidden" role="status" aria-live="polite" id="catalog-said">${said}</p>
    <div class="columns">
      <${Categories} ctx=${ctx} list=${categoryList} view=${categoryView} onChanged=${categoriesChanged}
        onShowPets=${(/** @type {number} */ id) => {
          petView.set({ category: String(id) });
          focusAfter("#pet-category-filter");
        }} />
      <${Pets} ctx=${ctx} list=${pets} view=${petView} />
    </div>
  </section>`;
};
