import { z } from "zod";
import { categoryJson } from "../presenters.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import { Category, idParam, NewCategory, PageQuery } from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";
import { IdempotencyHeaders, idempotencyErrors } from "../idempotency-docs.ts";

const categoryId = idParam("categoryId", "Identifier of the category");
const Categories = z.array(Category);
const read = { permission: "catalog:read" } as const;
const write = { permission: "catalog:write" } as const;

export const categoryRoutes = (uc: UseCases): Route[] => [
  {
    method: "GET",
    path: "/categories",
    operationId: "listCategories",
    access: read,
    docs: {
      tag: "Pets",
      summary: "List categories",
      query: PageQuery,
      success: { status: 200, description: "A page of categories, in ascending id order.", body: Categories, headers: ["Link"] },
    },
    handle: async (event) => {
      const q = parseOrReject(PageQuery, queryOf(event), "query");
      return pageResponse(event, await uc.listCategories.execute({ limit: q.limit ?? 20, after: q.after }), categoryJson);
    },
  },
  {
    method: "POST",
    path: "/categories",
    operationId: "createCategory",
    idempotent: true,
    access: write,
    docs: {
      tag: "Pets",
      summary: "Create a category",
      description: "Names are unique, compared case-insensitively.",
      body: NewCategory,
      success: { status: 201, description: "The category, created.", body: Category, headers: ["Location"] },
      headers: IdempotencyHeaders,
      errors: ["category_name_taken", ...idempotencyErrors],
    },
    handle: async (event) => {
      const category = await uc.createCategory.execute(await readJsonBody(event, NewCategory));
      return created(categoryJson(category), `/categories/${category.id}`);
    },
  },
  {
    method: "GET",
    path: "/categories/:categoryId",
    operationId: "getCategory",
    access: read,
    docs: {
      tag: "Pets",
      summary: "Get a category",
      path: categoryId,
      success: { status: 200, description: "The category.", body: Category },
    },
    handle: async (event) => {
      const { categoryId: id } = parseOrReject(categoryId, pathParams(event), "path");
      return json(categoryJson(await uc.getCategory.execute(id)));
    },
  },
  {
    method: "PUT",
    path: "/categories/:categoryId",
    operationId: "updateCategory",
    access: write,
    docs: {
      tag: "Pets",
      summary: "Update a category",
      path: categoryId,
      body: NewCategory,
      success: { status: 200, description: "The category, updated.", body: Category },
      errors: ["category_name_taken"],
    },
    handle: async (event) => {
      const { categoryId: id } = parseOrReject(categoryId, pathParams(event), "path");
      return json(categoryJson(await uc.updateCategory.execute(id, await readJsonBody(event, NewCategory))));
    },
  },
  {
    method: "DELETE",
    path: "/categories/:categoryId",
    operationId: "deleteCategory",
    access: write,
    docs: {
      tag: "Pets",
      summary: "Delete a category",
      description: "A category that still has pets cannot be deleted.",
      path: categoryId,
      success: { status: 204, description: "Deleted." },
      errors: ["category_in_use"],
    },
    handle: async (event) => {
      const { categoryId: id } = parseOrReject(categoryId, pathParams(event), "path");
      await uc.deleteCategory.execute(id);
      return noContent();
    },
  },
];
