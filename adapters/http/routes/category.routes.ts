import { z } from "zod";
import { presentCategory } from "../presenters.ts";
import type { Category } from "../../../core/categories/category.ts";
import { entityTag } from "../conditional.ts";
import { created, paged, route, tagged } from "../route.ts";
import { CategoryBody, CategoryIdParam, CategoryView, PageQuery } from "../schemas.ts";

const versioned = { letter: "c", idParam: "categoryId" };
const taggedCategory = (c: Category) => tagged(presentCategory(c), entityTag("c", c.id, c.revision));

export const categoryRoutes = [
  route({
    method: "GET",
    path: "/categories",
    operationId: "listCategories",
    tag: "Pets",
    summary: "List categories",
    access: "catalog:read",
    input: { query: PageQuery },
    output: {
      status: 200,
      description: "A page of categories, in ascending id order.",
      body: z.array(CategoryView),
      headers: ["Link"],
    },
    handle: async ({ query }, _actor, { useCases }) =>
      paged(await useCases.listCategories.execute(query), presentCategory),
  }),
  route({
    method: "POST",
    path: "/categories",
    operationId: "createCategory",
    tag: "Pets",
    summary: "Create a category",
    description: "Names are unique, compared case-insensitively.",
    access: "catalog:write",
    idempotent: true,
    input: { body: CategoryBody },
    output: { status: 201, description: "The category, created.", body: CategoryView, headers: ["Location"] },
    errors: ["category_name_taken"],
    handle: async ({ body, attempt }, _actor, { useCases }) => {
      const category = await useCases.createCategory.execute(body, attempt);
      return created(presentCategory(category), `/categories/${category.id}`);
    },
  }),
  route({
    method: "GET",
    path: "/categories/{categoryId}",
    operationId: "getCategory",
    tag: "Pets",
    summary: "Get a category",
    access: "catalog:read",
    input: { path: CategoryIdParam },
    output: { status: 200, description: "The category.", body: CategoryView },
    versioned,
    handle: async ({ path }, _actor, { useCases }) =>
      taggedCategory(await useCases.getCategory.execute(path.categoryId)),
  }),
  route({
    method: "PUT",
    path: "/categories/{categoryId}",
    operationId: "updateCategory",
    tag: "Pets",
    summary: "Update a category",
    access: "catalog:write",
    input: { path: CategoryIdParam, body: CategoryBody },
    output: { status: 200, description: "The category, updated.", body: CategoryView },
    errors: ["category_name_taken"],
    versioned,
    handle: async ({ path, body, expectedRevision }, _actor, { useCases }) =>
      taggedCategory(await useCases.updateCategory.execute(path.categoryId, body, expectedRevision)),
  }),
  route({
    method: "DELETE",
    path: "/categories/{categoryId}",
    operationId: "deleteCategory",
    tag: "Pets",
    summary: "Delete a category",
    description: "A category that still has pets cannot be deleted.",
    access: "catalog:write",
    input: { path: CategoryIdParam },
    output: { status: 204, description: "Deleted." },
    errors: ["category_in_use"],
    versioned,
    handle: ({ path, expectedRevision }, _actor, { useCases }) =>
      useCases.deleteCategory.execute(path.categoryId, expectedRevision),
  }),
];
