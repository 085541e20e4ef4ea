// @ts-check
// Categories: the paged list, create, rename (undoable) and delete (confirmed; it cannot be undone).

import { explain, query } from "./api.js";
import { CheckedText, InlineText, RowActions, useForm } from "./forms.js";
import { Pager, sizeOf, usePagedList } from "./paging.js";
import { check } from "./rules.js";
import { Alert, OutcomeLine, html, refusal } from "./ui.js";

/**
 * @typedef {import("./api.js").Api} Api
 * @typedef {import("./api.js").Category} Category
 * @typedef {import("./catalog.js").CatalogContext} CatalogContext
 */

/**
 * The categories page as the view asks for it.
 * @param {Api} api
 * @param {import("./url-state.js").View} view
 */
export const useCategoryList = (api, view) => {
  const size = sizeOf(view);
  return usePagedList(api, `/categories${query({ limit: size })}`, view, size);
};

/**
 * @param {{ ctx: CatalogContext, onCreated: () => Promise<void> }} props
 */
const NewCategory = ({ ctx, onCreated }) => {
  const form = useForm({ name: "" });
  const problem = check(ctx.rules, "NewCategory", "name", form.values.name ?? "", "Name");
  /** @param {Event} event */
  const create = async (event) => {
    event.preventDefault();
    ctx.begin();
    form.try();
    if (problem) return ctx.focusAfter("#new-category");
    try {
      const res = await ctx.api("POST", "/categories", { body: { name: form.values.name?.trim() } });
      form.reset({ name: "" });
      ctx.say(`Category ${res.body.name} created`);
      await onCreated();
    } catch (e) {
      form.fail(explain(e));
    }
    ctx.focusAfter("#new-category");
  };
  return html`<form class="create" novalidate onSubmit=${create}>
    <${CheckedText} id="new-category" label="New category" value=${form.values.name}
      problem=${problem} shown=${form.shown("name")}
      onValue=${(/** @type {string} */ v) => form.set("name", v)} onLeave=${() => form.leave("name")} />
    <button type="submit" disabled=${!ctx.canWrite}>Create category</button>
    <${Alert} message=${form.error} id="new-category-error" />
  </form>`;
};

/**
 * One category: its name, the pets in it, rename and delete.
 * @param {{ ctx: CatalogContext, category: Category, onChanged: () => Promise<void>, onShowPets: (id: number) => void }} props
 */
const CategoryRow = ({ ctx, category: c, onChanged, onShowPets }) => {
  const key = `c${c.id}`;
  /** @param {string} name */
  const rename = async (name) => {
    await ctx.api("PUT", `/categories/${c.id}`, {
      body: { name, ...(c.description ? { description: c.description } : {}) },
    });
    ctx.setEditing(undefined);
    ctx.done(key, `Category ${c.name} renamed to ${name}.`, async () => {
      try {
        await ctx.api("PUT", `/categories/${c.id}`, {
          body: { name: c.name, ...(c.description ? { description: c.description } : {}) },
        });
        ctx.done(key, `Category ${name} renamed back to ${c.name}.`);
        await onChanged();
      } catch (e) {
        ctx.outcomes.set(key, refusal(e));
      }
    });
    await onChanged();
    ctx.focusAfter(`#rename-${key}`);
  };
  const remove = async () => {
    ctx.setConfirming(undefined);
    try {
      await ctx.api("DELETE", `/categories/${c.id}`);
      ctx.say(`Category ${c.name} deleted`);
      await onChanged();
      ctx.focusAfter("#new-category");
    } catch (e) {
      ctx.outcomes.set(key, refusal(e));
      ctx.focusAfter(`#delete-${key}`);
    }
  };
  return html`<li data-category-id=${c.id}>
    ${
      ctx.editing === key
        ? html`<${InlineText} id=${`rename-category-${c.id}`} label=${`New name for category ${c.name}`}
            initial=${c.name} rules=${ctx.rules} body="NewCategory" onSubmit=${rename}
            onCancel=${() => {
              ctx.setEditing(undefined);
              ctx.focusAfter(`#rename-${key}`);
            }} />`
        : html`<span class="name">${c.name} <span class="id">#${c.id}</span></span>
          <button type="button" onClick=${() => onShowPets(c.id)} aria-label=${`Show pets in ${c.name}`}>Pets</button>
          <${RowActions} ctx=${ctx} rowKey=${key} label=${`category ${c.name}`} detail="This cannot be undone."
            onDelete=${remove} />`
    }
    <${OutcomeLine} outcome=${ctx.outcomes.get(key)} />
  </li>`;
};

/**
 * @param {{ ctx: CatalogContext, list: import("./paging.js").PagedList<Category>, view: import("./url-state.js").View,
 *   onChanged: () => Promise<void>, onShowPets: (id: number) => void }} props
 */
export const Categories = ({ ctx, list, view, onChanged, onShowPets }) => html`<div>
  <h3>Categories</h3>
  <${NewCategory} ctx=${ctx} onCreated=${onChanged} />
  ${list.fromPager ? null : html`<${OutcomeLine} outcome=${list.outcome} onWaited=${list.reload} />`}
  <ul class="rows" id="categories">
    ${(list.items ?? []).map(
      (c) =>
        html`<${CategoryRow} key=${c.id} ctx=${ctx} category=${c} onChanged=${onChanged} onShowPets=${onShowPets} />`,
    )}
    ${list.items && list.items.length === 0 ? html`<li>No categories yet.</li>` : null}
  </ul>
  <${Pager} list=${list} what="categories" id="categories-size"
    onSize=${(/** @type {number} */ size) => view.set({ size: size === 20 ? "" : String(size) })} />
</div>`;
