// @ts-check
// Pets and categories: paged lists (pets sortable by name or id, filtered by name, category and status), create,
// rename, move and delete, each form checked in the browser with the API's own rules before it is sent.

import { useState } from "preact/hooks";
import { explain, query } from "./api.js";
import { Pager, SortHeader, usePagedList, useSettled } from "./paging.js";
import { check, useRules } from "./rules.js";
import { Alert, Confirm, FieldError, StatusFilter, html, useAutoFocus, useFocusAfter } from "./ui.js";

/**
 * @typedef {import("./api.js").Api} Api
 * @typedef {import("./api.js").Category} Category
 * @typedef {import("./api.js").Pet} Pet
 * @typedef {import("./rules.js").Rules} Rules
 */

/**
 * A text field checked against one rule of the API: its message shows once the field was left or a send was tried,
 * and goes away as soon as the text is right.
 * @param {{ id: string, label: string, value: string, problem: string, shown: boolean, onValue: (value: string) => void,
 *   onLeave?: () => void, inputRef?: any }} props
 */
const CheckedText = ({ id, label, value, problem, shown, onValue, onLeave, inputRef }) => html`<span class="field">
  <label for=${id}>${label}</label>
  <input id=${id} ref=${inputRef} value=${value} autocomplete="off"
    aria-invalid=${shown && problem ? "true" : undefined} aria-describedby=${shown && problem ? `${id}-problem` : undefined}
    onInput=${(/** @type {Event} */ e) => onValue(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
    onBlur=${onLeave} />
  <${FieldError} id=${`${id}-problem`} message=${shown ? problem : ""} />
</span>`;

/**
 * A one-field inline form (rename), checked with the API's rule, the service's refusal shown next to it.
 * @param {{ label: string, id: string, initial: string, rules: Rules | undefined, body: string,
 *   onSubmit: (value: string) => Promise<void>, onCancel: () => void }} props
 */
const InlineText = ({ label, id, initial, rules, body, onSubmit, onCancel }) => {
  const [value, setValue] = useState(initial);
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  const input = useAutoFocus();
  const problem = check(rules, body, "name", value, "Name");
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setTried(true);
    if (problem) return input.current?.focus();
    try {
      await onSubmit(value.trim());
    } catch (e) {
      setError(explain(e));
      input.current?.focus();
    }
  };
  return html`<form class="inline" novalidate onSubmit=${submit}
    onKeyDown=${(/** @type {KeyboardEvent} */ e) => e.key === "Escape" && onCancel()}>
    <label for=${id} class="visually-hidden">${label}</label>
    <input id=${id} ref=${input} value=${value} autocomplete="off"
      aria-invalid=${tried && problem ? "true" : undefined} aria-describedby=${tried && problem ? `${id}-problem` : undefined}
      onInput=${(/** @type {Event} */ e) => {
        setValue(/** @type {HTMLInputElement} */ (e.currentTarget).value);
        setError("");
      }} />
    <button type="submit">Rename</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
    <${FieldError} id=${`${id}-problem`} message=${tried ? problem : ""} />
    <${Alert} message=${error} />
  </form>`;
};

/**
 * The state of a create form: values, which fields were left, whether a send was tried, the service's refusal.
 * @param {Record<string, string>} initial
 */
const useForm = (initial) => {
  const [values, setValues] = useState(initial);
  const [left, setLeft] = useState(/** @type {Record<string, boolean>} */ ({}));
  const [edited, setEdited] = useState(/** @type {Record<string, boolean>} */ ({}));
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  return {
    values,
    error,
    tried,
    /** A field's message shows once a send was tried, or once it was edited and left (not merely passed through). */
    /** @param {string} field */
    shown: (field) => tried || Boolean(left[field] && edited[field]),
    /** @param {string} field @param {string} value */
    set: (field, value) => {
      setValues((current) => ({ ...current, [field]: value }));
      setEdited((current) => ({ ...current, [field]: true }));
      setError("");
    },
    /** @param {string} field */
    leave: (field) => setLeft((current) => ({ ...current, [field]: true })),
    try: () => setTried(true),
    /** @param {string} message */
    fail: (message) => setError(message),
    /** @param {Record<string, string>} next */
    reset: (next) => {
      setValues(next);
      setLeft({});
      setEdited({});
      setTried(false);
      setError("");
    },
  };
};

/**
 * @param {{ api: Api, canWrite: boolean, categories: Map<number, Category>, onCategoriesChanged: () => void }} props
 */
export const Catalog = ({ api, canWrite, categories, onCategoriesChanged }) => {
  const rules = useRules();
  const [editing, setEditing] = useState(/** @type {string | undefined} */ (undefined));
  const [confirming, setConfirming] = useState(/** @type {string | undefined} */ (undefined));
  const [rowError, setRowError] = useState(/** @type {{ key: string, message: string } | undefined} */ (undefined));
  const [said, setSaid] = useState("");
  const focusAfter = useFocusAfter("#catalog-title");

  const [categorySize, setCategorySize] = useState(20);
  const categoryList = usePagedList(api, `/categories${query({ limit: categorySize })}`);

  const [search, setSearch] = useState("");
  const [categoryFilter, setCategoryFilter] = useState("");
  const [statusFilter, setStatusFilter] = useState("");
  const [sort, setSort] = useState("name");
  const [petSize, setPetSize] = useState(20);
  const name = useSettled(search.trim(), 250);
  const petList = usePagedList(
    api,
    `/pets${query({ sort, limit: petSize, name, categoryId: categoryFilter, status: statusFilter })}`,
  );

  const newCategory = useForm({ name: "" });
  const newPet = useForm({ name: "", categoryId: "" });
  const categoryProblem = check(rules, "NewCategory", "name", newCategory.values.name ?? "", "Name");
  const petNameProblem = check(rules, "NewPet", "name", newPet.values.name ?? "", "Name");
  const petCategoryProblem = check(rules, "NewPet", "categoryId", newPet.values.categoryId ?? "", "Category");

  /** Anything done clears the last refusal shown in a row: it no longer applies. */
  const begin = () => setRowError(undefined);
  /**
   * @param {string} key
   * @param {() => Promise<unknown>} run
   * @param {string} done what to announce
   * @param {string} focus where the focus goes after it
   * @param {string} [focusOnError]
   */
  const attempt = async (key, run, done, focus, focusOnError) => {
    begin();
    setConfirming(undefined);
    try {
      await run();
      setSaid(done);
      focusAfter(focus);
    } catch (e) {
      setRowError({ key, message: explain(e) });
      focusAfter(focusOnError ?? focus);
    }
  };
  const reloadCategories = async () => {
    await categoryList.reload();
    onCategoriesChanged();
  };

  /** @param {Event} event */
  const createCategory = async (event) => {
    event.preventDefault();
    begin();
    newCategory.try();
    if (categoryProblem) return focusAfter("#new-category");
    try {
      const res = await api("POST", "/categories", { body: { name: newCategory.values.name?.trim() } });
      newCategory.reset({ name: "" });
      setSaid(`Category ${res.body.name} created`);
      await reloadCategories();
      focusAfter("#new-category");
    } catch (e) {
      newCategory.fail(explain(e));
      focusAfter("#new-category");
    }
  };
  /** @param {Event} event */
  const createPet = async (event) => {
    event.preventDefault();
    begin();
    newPet.try();
    if (petNameProblem) return focusAfter("#new-pet");
    if (petCategoryProblem) return focusAfter("#new-pet-category");
    try {
      const res = await api("POST", "/pets", {
        body: { name: newPet.values.name?.trim(), categoryId: Number(newPet.values.categoryId) },
      });
      newPet.reset({ name: "", categoryId: newPet.values.categoryId ?? "" });
      setSaid(`Pet ${res.body.name} created`);
      await petList.reload();
      focusAfter("#new-pet");
    } catch (e) {
      newPet.fail(explain(e));
      focusAfter("#new-pet");
    }
  };

  const categoryOptions = [...categories.values()].map((c) => html`<option value=${String(c.id)}>${c.name}</option>`);
  const categoryName = (/** @type {number} */ id) => categories.get(id)?.name ?? `#${id}`;
  /** @param {string} key */
  const RowAlert = (key) => html`<${Alert} message=${rowError?.key === key ? rowError.message : ""} />`;
  /** @param {Event} e */
  const valueOf = (e) => /** @type {HTMLInputElement | HTMLSelectElement} */ (e.currentTarget).value;

  const cats = categoryList.items;
  const pets = petList.items;
  return html`<section aria-labelledby="catalog-title">
    <h2 id="catalog-title" tabindex="-1">Pets and categories</h2>
    <p class="visually-hidden" role="status" aria-live="polite">${said}</p>
    <div class="columns">
      <div>
        <h3>Categories</h3>
        <form class="create" novalidate onSubmit=${createCategory}>
          <${CheckedText} id="new-category" label="New category" value=${newCategory.values.name}
            problem=${categoryProblem} shown=${newCategory.shown("name")}
            onValue=${(/** @type {string} */ v) => newCategory.set("name", v)} onLeave=${() => newCategory.leave("name")} />
          <button type="submit" disabled=${!canWrite}>Create category</button>
          <${Alert} message=${newCategory.error} id="new-category-error" />
        </form>
        <${Alert} message=${categoryList.error} />
        <ul class="rows" id="categories">
          ${(cats ?? []).map(
            (/** @type {Category} */ c) => html`<li key=${c.id} data-category-id=${c.id}>
              ${
                editing === `c${c.id}`
                  ? html`<${InlineText} id=${`rename-category-${c.id}`} label=${`New name for category ${c.name}`}
                      initial=${c.name} rules=${rules} body="NewCategory"
                      onCancel=${() => {
                        setEditing(undefined);
                        focusAfter(`#rename-c${c.id}`);
                      }}
                      onSubmit=${async (/** @type {string} */ value) => {
                        begin();
                        await api("PUT", `/categories/${c.id}`, {
                          body: { name: value, ...(c.description ? { description: c.description } : {}) },
                        });
                        setEditing(undefined);
                        setSaid(`Category renamed to ${value}`);
                        await reloadCategories();
                        focusAfter(`#rename-c${c.id}`);
                      }} />`
                  : html`<span class="name">${c.name} <span class="id">#${c.id}</span></span>
                    ${
                      confirming === `c${c.id}`
                        ? html`<${Confirm} question=${`Delete category ${c.name}?`} yes="Yes, delete" no="Keep it"
                            onYes=${() =>
                              attempt(
                                `c${c.id}`,
                                async () => {
                                  await api("DELETE", `/categories/${c.id}`);
                                  await reloadCategories();
                                },
                                `Category ${c.name} deleted`,
                                "#new-category",
                                `#delete-c${c.id}`,
                              )}
                            onNo=${() => {
                              setConfirming(undefined);
                              focusAfter(`#delete-c${c.id}`);
                            }} />`
                        : html`<button type="button" onClick=${() => {
                            setCategoryFilter(String(c.id));
                            focusAfter("#pet-category-filter");
                          }} aria-label=${`Show pets in ${c.name}`}>Pets</button>
                          <button type="button" id=${`rename-c${c.id}`} disabled=${!canWrite} onClick=${() => {
                            begin();
                            setEditing(`c${c.id}`);
                          }} aria-label=${`Rename category ${c.name}`}>Rename</button>
                          <button type="button" id=${`delete-c${c.id}`} disabled=${!canWrite} onClick=${() => {
                            begin();
                            setConfirming(`c${c.id}`);
                          }} aria-label=${`Delete category ${c.name}`}>Delete</button>`
                    }`
              }
              ${RowAlert(`c${c.id}`)}
            </li>`,
          )}
          ${cats && cats.length === 0 ? html`<li>No categories yet.</li>` : null}
        </ul>
        <${Pager} list=${categoryList} what="categories" size=${categorySize} onSize=${setCategorySize} id="categories-size" />
      </div>
      <div>
        <h3>Pets</h3>
        <form class="create" novalidate onSubmit=${createPet}>
          <${CheckedText} id="new-pet" label="New pet's name" value=${newPet.values.name}
            problem=${petNameProblem} shown=${newPet.shown("name")}
            onValue=${(/** @type {string} */ v) => newPet.set("name", v)} onLeave=${() => newPet.leave("name")} />
          <span class="field">
            <label for="new-pet-category">Category</label>
            <select id="new-pet-category" value=${newPet.values.categoryId}
              aria-invalid=${newPet.shown("categoryId") && petCategoryProblem ? "true" : undefined}
              aria-describedby=${newPet.shown("categoryId") && petCategoryProblem ? "new-pet-category-problem" : undefined}
              onChange=${(/** @type {Event} */ e) => newPet.set("categoryId", valueOf(e))}
              onBlur=${() => newPet.leave("categoryId")}>
              <option value="">Choose…</option>
              ${categoryOptions}
            </select>
            <${FieldError} id="new-pet-category-problem" message=${newPet.shown("categoryId") ? petCategoryProblem : ""} />
          </span>
          <button type="submit" disabled=${!canWrite}>Create pet</button>
          <${Alert} message=${newPet.error} id="new-pet-error" />
        </form>
        <div class="toolbar">
          <label for="pet-search">Name starts with</label>
          <input id="pet-search" type="search" value=${search} autocomplete="off" onInput=${(/** @type {Event} */ e) => setSearch(valueOf(e))} />
          <label for="pet-category-filter">In category</label>
          <select id="pet-category-filter" value=${categoryFilter} onChange=${(/** @type {Event} */ e) => setCategoryFilter(valueOf(e))}>
            <option value="">Any category</option>
            ${categoryOptions}
          </select>
          <${StatusFilter} id="pet-status-filter" value=${statusFilter} onChange=${setStatusFilter} />
        </div>
        <${Alert} message=${petList.error} />
        <table id="pets" class="cards">
          <caption class="visually-hidden">Pets, sorted by ${sort === "name" ? "name" : "id"}</caption>
          <thead><tr>
            <${SortHeader} label="Name" sort=${sort} options=${["name"]} onSort=${setSort} />
            <${SortHeader} label="Id" sort=${sort} options=${["id", "-id"]} onSort=${setSort} />
            <th scope="col">Category</th><th scope="col">Status</th><th scope="col">Actions</th>
          </tr></thead>
          <tbody>
            ${pets && pets.length === 0 ? html`<tr><td colspan="5">No pets match.</td></tr>` : null}
            ${(pets ?? []).map(
              (/** @type {Pet} */ p) => html`<tr key=${p.id} data-pet-id=${p.id}>
                ${
                  editing === `p${p.id}`
                    ? html`<td colspan="2"><${InlineText} id=${`rename-pet-${p.id}`} label=${`New name for ${p.name}`}
                        initial=${p.name} rules=${rules} body="NewPet"
                        onCancel=${() => {
                          setEditing(undefined);
                          focusAfter(`#rename-p${p.id}`);
                        }}
                        onSubmit=${async (/** @type {string} */ value) => {
                          begin();
                          await api("PUT", `/pets/${p.id}`, {
                            body: { name: value, categoryId: p.categoryId, status: p.status },
                          });
                          setEditing(undefined);
                          setSaid(`Renamed to ${value}`);
                          await petList.reload();
                          focusAfter(`#rename-p${p.id}`);
                        }} /></td>`
                    : html`<th scope="row" class="name">${p.name}</th><td data-label="Id" class="id">#${p.id}</td>`
                }
                <td data-label="Category" class="category">
                  <label for=${`move-pet-${p.id}`} class="visually-hidden">Category of ${p.name}</label>
                  <select id=${`move-pet-${p.id}`} disabled=${!canWrite} value=${String(p.categoryId)}
                    onChange=${(/** @type {Event} */ e) => {
                      const categoryId = Number(valueOf(e));
                      void attempt(
                        `p${p.id}`,
                        async () => {
                          await api("PUT", `/pets/${p.id}`, { body: { name: p.name, categoryId, status: p.status } });
                          await petList.reload();
                        },
                        `${p.name} moved to ${categoryName(categoryId)}`,
                        `#move-pet-${p.id}`,
                      );
                    }}>
                    ${categories.has(p.categoryId) ? null : html`<option value=${String(p.categoryId)}>#${p.categoryId}</option>`}
                    ${categoryOptions}
                  </select>
                </td>
                <td data-label="Status"><span class=${`status ${p.status}`}>${p.status}</span></td>
                <td data-label="Actions">
                  ${
                    confirming === `p${p.id}`
                      ? html`<${Confirm} question=${`Delete ${p.name}?`} yes="Yes, delete" no="Keep it"
                          onYes=${() =>
                            attempt(
                              `p${p.id}`,
                              async () => {
                                await api("DELETE", `/pets/${p.id}`);
                                await petList.reload();
                              },
                              `${p.name} deleted`,
                              "#new-pet",
                              `#delete-p${p.id}`,
                            )}
                          onNo=${() => {
                            setConfirming(undefined);
                            focusAfter(`#delete-p${p.id}`);
                          }} />`
                      : html`<button type="button" id=${`rename-p${p.id}`} disabled=${!canWrite} onClick=${() => {
                          begin();
                          setEditing(`p${p.id}`);
                        }} aria-label=${`Rename ${p.name}`}>Rename</button>
                        <button type="button" id=${`delete-p${p.id}`} disabled=${!canWrite} onClick=${() => {
                          begin();
                          setConfirming(`p${p.id}`);
                        }} aria-label=${`Delete ${p.name}`}>Delete</button>`
                  }
                  ${RowAlert(`p${p.id}`)}
                </td>
              </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} list=${petList} what="pets" size=${petSize} onSize=${setPetSize} id="pets-size" />
      </div>
    </div>
  </section>`;
};
