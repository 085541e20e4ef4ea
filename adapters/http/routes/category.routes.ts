import { categoryJson } from "../presenters.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import { idParam, NewCategory, PageQuery } from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";

const categoryId = idParam("categoryId");
const read = { permission: "catalog:read" } as const;
const write = { permission: "catalog:write" } as const;

export const categoryRoutes = (uc: UseCases): Route[] => [
  {
    method: "GET",
    path: "/categories",
    operationId: "listCategories",
    access: read,
    handle: async (event) => {
      const q = parseOrReject(PageQuery, queryOf(event), "query");
      return pageResponse(event, await uc.listCategories.execute({ limit: q.limit ?? 20, after: q.after }), categoryJson);
    },
  },
  {
    method: "POST",
    path: "/categories",
    operationId: "createCategory",
    access: write,
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
    handle: async (event) => {
      const { categoryId: id } = parseOrReject(categoryId, pathParams(event), "path");
      await uc.deleteCategory.execute(id);
      return noContent();
    },
  },
];
