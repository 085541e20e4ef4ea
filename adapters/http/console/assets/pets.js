// @ts-check
// Pets: the paged list (sortable by name or id, searched and filtered, all in the URL), create, rename and move to
// another category (each saved explicitly, and undoable), and delete (confirmed; it cannot be undone).

import { useRef, useState } from "preact/hooks";
import { explain, query } from "./api.js";
import { CheckedText, InlineText, RowActions, useForm } from "./forms.js";
import { Pager, SearchField, SortHeader, sizeOf, usePagedList } from "./paging.js";
import { check } from "./rules.js";
import { Alert, FieldError, OutcomeLine, StatusFilter, html, refusal } from "./ui.js";

/**
 * @typedef {import("./api.js").Api} Api
 * @typedef {import("./api.js").Pet} Pet
 * @typedef {import("./catalog.js").CatalogContext} CatalogContext
 * @typedef {import("./url-state.js").View} View
 */

/** @param {Event} e */
const valueOf = (e) => /** @type {HTMLInputElement | HTMLSelectElement} */ (e.currentTarget).value;

/**
 * The pets page as the view asks for it.
 * @param {Api} api
 * @param {View} view
 */
export const usePetList = (api, view) => {
  const size = sizeOf(view);
  const first = `/pets${query({
    sort: view.get("sort", "name"),
    limit: size,
    name: view.get("name"),
    categoryId: view.get("category"),
    status: view.get("status"),
  })}`;
  return usePagedList(api, first, view, size);
};

/** @param {{ ctx: CatalogContext }} props */
const CategoryOptions = ({ ctx }) =>
  [...ctx.categories.values()].map((c) => html`<option value=${String(c.id)}>${c.name}</option>`);

/**
 * @param {{ ctx: CatalogContext, onCreated: () => Promise<void> }} props
 */
const NewPet = ({ ctx, onCreated }) => {
  const form = useForm({ name: "", categoryId: "" });
  const nameProblem = check(ctx.rules, "NewPet", "name", form.values.name ?? "", "Name");
  const categoryProblem = check(ctx.rules, "NewPet", "categoryId", form.values.categoryId ?? "", "Category");
  /** @param {Event} event */
  const create = async (event) => {
    event.preventDefault();
    ctx.begin();
    form.try();
    if (nameProblem) return ctx.focusAfter("#new-pet");
    if (categoryProblem) return ctx.focusAfter("#new-pet-category");
    try {
      const res = await ctx.api("POST", "/pets", {
        body: { name: form.values.name?.trim(), categoryId: Number(form.values.categoryId) },
      });
      form.reset({ name: "", categoryId: form.values.categoryId ?? "" });
      ctx.say(`Pet ${res.body.name} created`);
      await onCreated();
    } catch (e) {
      form.fail(explain(e));
    }
    ctx.focusAfter("#new-pet");
  };
  const shown = form.shown("categoryId") && categoryProblem;
  return html`<form class="create" novalidate onSubmit=${create}>
    <${CheckedText} id="new-pet" label="New pet's name" value=${form.values.name}
      problem=${nameProblem} shown=${form.shown("name")}
      onValue=${(/** @type {string} */ v) => form.set("name", v)} onLeave=${() => form.leave("name")} />
    <span class="field">
      <label for="new-pet-category">Category</label>
      <select id="new-pet-category" value=${form.values.categoryId}
        aria-invalid=${shown ? "true" : undefined} aria-describedby=${shown ? "new-pet-category-problem" : undefined}
        onChange=${(/** @type {Event} */ e) => form.set("categoryId", valueOf(e))} onBlur=${() => form.leave("categoryId")}>
        <option value="">Choose…</option>
        <${CategoryOptions} ctx=${ctx} />
      </select>
      <${FieldError} id="new-pet-category-problem" message=${form.shown("categoryId") ? categoryProblem : ""} />
    </span>
    <button type="submit" disabled=${!ctx.canWrite}>Create pet</button>
    <${Alert} message=${form.error} id="new-pet-error" />
  </form>`;
};

/** @param {{ ctx: CatalogContext, view: View }} props */
const PetFilters = ({ ctx, view }) => html`<div class="toolbar">
  <${SearchField} id="pet-search" label="Name starts with" view=${view} name="name" />
  <label for="pet-category-filter">In category</label>
  <select id="pet-category-filter" value=${view.get("category")} onChange=${(/** @type {Event} */ e) => view.set({ category: valueOf(e) })}>
    <option value="">Any category</option>
    <${CategoryOptions} ctx=${ctx} />
  </select>
  <${StatusFilter} id="pet-status-filter" value=${view.get("status")} onChange=${(/** @type {string} */ status) => view.set({ status })} />
</div>`;

/**
 * Writes a pet's name and category (its status as it is).
 * @param {Api} api @param {Pet} pet @param {{ name?: string, categoryId?: number }} change
 * @returns {Promise<Pet>}
 */
const savePet = async (api, pet, change) =>
  (
    await api("PUT", `/pets/${pet.id}`, {
      body: { name: pet.name, categoryId: pet.categoryId, status: pet.status, ...change },
    })
  ).body;

/**
 * A pet's category: choosing another one is only a draft until Save (Cancel or Escape puts the select back).
 * @param {{ ctx: CatalogContext, pet: Pet, onSaved: (pet: Pet, from: number) => void }} props
 */
const CategoryMove = ({ ctx, pet: p, onSaved }) => {
  const [draft, setDraft] = useState(/** @type {string | undefined} */ (undefined));
  const id = `move-pet-${p.id}`;
  const pending = draft !== undefined && draft !== String(p.categoryId);
  const cancel = () => {
    setDraft(undefined);
    ctx.focusAfter(`#${id}`);
  };
  const save = async () => {
    ctx.begin();
    try {
      onSaved(await savePet(ctx.api, p, { categoryId: Number(draft) }), p.categoryId);
      setDraft(undefined);
    } catch (e) {
      ctx.outcomes.set(`p${p.id}`, refusal(e));
    }
    ctx.focusAfter(`#${id}`);
  };
  return html`<span class="move" onKeyDown=${(/** @type {KeyboardEvent} */ e) => e.key === "Escape" && pending && cancel()}>
    <label for=${id} class="visually-hidden">Category of ${p.name}</label>
    <select id=${id} disabled=${!ctx.canWrite} value=${draft ?? String(p.categoryId)}
      aria-describedby=${pending ? `${id}-pending` : undefined}
      onChange=${(/** @type {Event} */ e) => setDraft(valueOf(e))}>
      ${ctx.categories.has(p.categoryId) ? null : html`<option value=${String(p.categoryId)}>#${p.categoryId}</option>`}
      <${CategoryOptions} ctx=${ctx} />
    </select>
    <span class=${pending ? "move-actions" : "move-actions idle"} id=${`${id}-pending`}>
      ${
        pending
          ? html`<span class="visually-hidden">Not saved yet.</span>
            <button type="button" id=${`save-move-${p.id}`} onClick=${save} aria-label=${`Save the category of ${p.name}`}>Save</button>
            <button type="button" onClick=${cancel} aria-label=${`Keep the category of ${p.name}`}>Cancel</button>`
          : null
      }
    </span>
  </span>`;
};

/**
 * @param {{ ctx: CatalogContext, pet: Pet, onChanged: (pet: Pet) => void, onRemoved: () => Promise<void> }} props
 */
const PetRow = ({ ctx, pet: p, onChanged, onRemoved }) => {
  const key = `p${p.id}`;
  // Undo writes the pet as it is then (its status may have moved meanwhile) with the old name or category.
  const latest = useRef(p);
  latest.current = p;
  /** @param {{ name?: string, categoryId?: number }} change @param {string} message */
  const undoTo = (change, message) => async () => {
    try {
      onChanged(await savePet(ctx.api, latest.current, change));
      ctx.done(key, message);
    } catch (e) {
      ctx.outcomes.set(key, refusal(e));
    }
  };
  /** @param {string} name */
  const rename = async (name) => {
    ctx.begin();
    const saved = await savePet(ctx.api, p, { name });
    ctx.setEditing(undefined);
    onChanged(saved);
    ctx.done(key, `Renamed ${p.name} to ${name}.`, undoTo({ name: p.name }, `Renamed back to ${p.name}.`));
    ctx.focusAfter(`#rename-${key}`);
  };
  const remove = async () => {
    ctx.setConfirming(undefined);
    try {
      await ctx.api("DELETE", `/pets/${p.id}`);
      ctx.say(`${p.name} deleted`);
      await onRemoved();
      ctx.focusAfter("#new-pet");
    } catch (e) {
      ctx.outcomes.set(key, refusal(e));
      ctx.focusAfter(`#delete-${key}`);
    }
  };
  const categoryName = (/** @type {number} */ id) => ctx.categories.get(id)?.name ?? `#${id}`;
  return html`<tr data-pet-id=${p.id}>
    ${
      ctx.editing === key
        ? html`<td colspan="2"><${InlineText} id=${`rename-pet-${p.id}`} label=${`New name for ${p.name}`}
            initial=${p.name} rules=${ctx.rules} body="NewPet" onSubmit=${rename}
            onCancel=${() => {
              ctx.setEditing(undefined);
              ctx.focusAfter(`#rename-${key}`);
            }} /></td>`
        : html`<th scope="row" class="name">${p.name}</th><td data-label="Id" class="id">#${p.id}</td>`
    }
    <td data-label="Category" class="category">
      <${CategoryMove} ctx=${ctx} pet=${p} onSaved=${(/** @type {Pet} */ moved, /** @type {number} */ from) => {
        onChanged(moved);
        ctx.done(
          key,
          `${p.name} moved to ${categoryName(moved.categoryId)}.`,
          undoTo({ categoryId: from }, `${p.name} moved back to ${categoryName(from)}.`),
        );
      }} />
    </td>
    <td data-label="Status"><span class=${`status ${p.status}`}>${p.status}</span></td>
    <td data-label="Actions">
      <${RowActions} ctx=${ctx} rowKey=${key} label=${p.name} detail="This cannot be undone: its stock goes with it."
        onDelete=${remove} />
      <${OutcomeLine} outcome=${ctx.outcomes.get(key)} />
    </td>
  </tr>`;
};

/**
 * @param {{ ctx: CatalogContext, list: import("./paging.js").PagedList<Pet>, view: View }} props
 */
export const Pets = ({ ctx, list, view }) => {
  const sort = view.get("sort", "name");
  /** @param {Pet} pet */
  const changed = (pet) => list.update((pets) => pets.map((p) => (p.id === pet.id ? pet : p)));
  return html`<div>
    <h3>Pets</h3>
    <${NewPet} ctx=${ctx} onCreated=${list.reload} />
    <${PetFilters} ctx=${ctx} view=${view} />
    ${list.fromPager ? null : html`<${OutcomeLine} outcome=${list.outcome} onWaited=${list.reload} />`}
    <table id="pets" class="cards">
      <caption class="visually-hidden">Pets, sorted by ${sort === "name" ? "name" : "id"}</caption>
      <thead><tr>
        <${SortHeader} label="Name" sort=${sort} options=${["name"]} onSort=${(/** @type {string} */ s) => view.set({ sort: s === "name" ? "" : s })} />
        <${SortHeader} label="Id" sort=${sort} options=${["id", "-id"]} onSort=${(/** @type {string} */ s) => view.set({ sort: s })} />
        <th scope="col">Category</th><th scope="col">Status</th><th scope="col">Actions</th>
      </tr></thead>
      <tbody>
        ${list.items && list.items.length === 0 ? html`<tr><td colspan="5">No pets match.</td></tr>` : null}
        ${(list.items ?? []).map(
          (p) => html`<${PetRow} key=${p.id} ctx=${ctx} pet=${p} onChanged=${changed} onRemoved=${list.reload} />`,
        )}
      </tbody>
    </table>
    <${Pager} list=${list} what="pets" id="pets-size"
      onSize=${(/** @type {number} */ size) => view.set({ size: size === 20 ? "" : String(size) })} />
  </div>`;
};
