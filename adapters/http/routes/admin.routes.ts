import { z } from "zod";
import type { Clock } from "../../../core/shared/clock.port.ts";
import { apiKeyJson } from "../presenters.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import { ApiKeyUpdate, ApiKeyView, idParam, IssuedApiKey, NewApiKey, PageQuery } from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";

const keyId = idParam("keyId", "Identifier of the API key");
const ApiKeys = z.array(ApiKeyView);
const admin = { permission: "api-keys:manage" } as const;

export const adminRoutes = (uc: UseCases, clock: Clock): Route[] => {
  const view = (key: Parameters<typeof apiKeyJson>[0]) => apiKeyJson(key, clock.now());
  return [
    {
      method: "POST",
      path: "/admin/api-keys",
      operationId: "createApiKey",
      access: admin,
      docs: {
        tag: "API keys",
        summary: "Create an API key",
        description: "`limits` is required for the enterprise plan and refused for the others. The secret `key` is shown in this response only.",
        body: NewApiKey,
        success: { status: 201, description: "The key, with its secret.", body: IssuedApiKey, headers: ["Location"] },
      },
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
      docs: {
        tag: "API keys",
        summary: "List API keys",
        description: "Without secrets, with ban state.",
        query: PageQuery,
        success: { status: 200, description: "A page of keys, in ascending id order.", body: ApiKeys, headers: ["Link"] },
      },
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
      docs: {
        tag: "API keys",
        summary: "Get an API key",
        path: keyId,
        success: { status: 200, description: "The key, without its secret.", body: ApiKeyView },
      },
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
      docs: {
        tag: "API keys",
        summary: "Update an API key",
        description:
          "Changes label, role, plan or limits; takes effect on the key's next request. The last active admin key cannot lose the admin role (409 `last_admin_key`).",
        path: keyId,
        body: ApiKeyUpdate,
        success: { status: 200, description: "The key, updated.", body: ApiKeyView },
        errors: ["last_admin_key"],
      },
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
      docs: {
        tag: "API keys",
        summary: "Revoke an API key",
        description: "The key answers 401 from then on. The last active admin key cannot be revoked (409 `last_admin_key`).",
        path: keyId,
        success: { status: 204, description: "Revoked." },
        errors: ["last_admin_key"],
      },
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
      docs: {
        tag: "API keys",
        summary: "Lift a ban",
        path: keyId,
        success: { status: 200, description: "The key, no longer banned.", body: ApiKeyView },
      },
      handle: async (event) => {
        const { keyId: id } = parseOrReject(keyId, pathParams(event), "path");
        return json(view(await uc.unbanApiKey.execute(id)));
      },
    },
  ];
};
