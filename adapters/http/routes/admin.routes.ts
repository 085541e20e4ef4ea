import type { Clock } from "../../../core/shared/clock.port.ts";
import { apiKeyJson } from "../presenters.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import { ApiKeyUpdate, idParam, NewApiKey, PageQuery } from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";

const keyId = idParam("keyId");
const admin = { permission: "api-keys:manage" } as const;

export const adminRoutes = (uc: UseCases, clock: Clock): Route[] => {
  const view = (key: Parameters<typeof apiKeyJson>[0]) => apiKeyJson(key, clock.now());
  return [
    {
      method: "POST",
      path: "/admin/api-keys",
      operationId: "createApiKey",
      access: admin,
      handle: async (event) => {
        const { key, secret } = await uc.createApiKey.execute(await readJsonBody(event, NewApiKey));
        return created({ ...view(key), key: secret }, `/admin/api-keys/${key.id}`);
      },
    },
    {
      method: "GET",
      path: "/admin/api-keys",
      operationId: "listApiKeys",
      access: admin,
      handle: async (event) => {
        const q = parseOrReject(PageQuery, queryOf(event), "query");
        return pageResponse(event, await uc.listApiKeys.execute({ limit: q.limit ?? 20, after: q.after }), view);
      },
    },
    {
      method: "GET",
      path: "/admin/api-keys/:keyId",
      operationId: "getApiKey",
      access: admin,
      handle: async (event) => {
        const { keyId: id } = parseOrReject(keyId, pathParams(event), "path");
        return json(view(await uc.getApiKey.execute(id)));
      },
    },
    {
      method: "PATCH",
      path: "/admin/api-keys/:keyId",
      operationId: "updateApiKey",
      access: admin,
      handle: async (event) => {
        const { keyId: id } = parseOrReject(keyId, pathParams(event), "path");
        return json(view(await uc.updateApiKey.execute(id, await readJsonBody(event, ApiKeyUpdate))));
      },
    },
    {
      method: "DELETE",
      path: "/admin/api-keys/:keyId",
      operationId: "revokeApiKey",
      access: admin,
      handle: async (event) => {
        const { keyId: id } = parseOrReject(keyId, pathParams(event), "path");
        await uc.revokeApiKey.execute(id);
        return noContent();
      },
    },
    {
      method: "POST",
      path: "/admin/api-keys/:keyId/unban",
      operationId: "unbanApiKey",
      access: admin,
      handle: async (event) => {
        const { keyId: id } = parseOrReject(keyId, pathParams(event), "path");
        return json(view(await uc.unbanApiKey.execute(id)));
      },
    },
  ];
};
