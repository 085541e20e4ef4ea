import { z } from "zod";
import { presentApiKey } from "../presenters.ts";
import { created, paged, route } from "../route.ts";
import { ApiKeyBody, ApiKeyChangesBody, ApiKeyView, IssuedApiKeyView, KeyIdParam, PageQuery } from "../schemas.ts";

export const adminRoutes = [
  route({
    method: "POST",
    path: "/admin/api-keys",
    operationId: "createApiKey",
    tag: "API keys",
    summary: "Create an API key",
    description:
      "`limits` is required for the enterprise plan and refused for the others. The secret `key` is shown in this response only.",
    access: "api-keys:manage",
    input: { body: ApiKeyBody },
    output: { status: 201, description: "The key, with its secret.", body: IssuedApiKeyView, headers: ["Location"] },
    handle: async ({ body }, _actor, { useCases, clock }) => {
      const { key, secret } = await useCases.createApiKey.execute(body);
      return created({ ...presentApiKey(key, clock.now()), key: secret }, `/admin/api-keys/${key.id}`);
    },
  }),
  route({
    method: "GET",
    path: "/admin/api-keys",
    operationId: "listApiKeys",
    tag: "API keys",
    summary: "List API keys",
    description: "Without secrets, with ban state.",
    access: "api-keys:manage",
    input: { query: PageQuery },
    output: {
      status: 200,
      description: "A page of keys, in ascending id order.",
      body: z.array(ApiKeyView),
      headers: ["Link"],
    },
    handle: async ({ query }, _actor, { useCases, clock }) => {
      const now = clock.now();
      return paged(await useCases.listApiKeys.execute(query), (key) => presentApiKey(key, now));
    },
  }),
  route({
    method: "GET",
    path: "/admin/api-keys/{keyId}",
    operationId: "getApiKey",
    tag: "API keys",
    summary: "Get an API key",
    access: "api-keys:manage",
    input: { path: KeyIdParam },
    output: { status: 200, description: "The key, without its secret.", body: ApiKeyView },
    handle: async ({ path }, _actor, { useCases, clock }) =>
      presentApiKey(await useCases.getApiKey.execute(path.keyId), clock.now()),
  }),
  route({
    method: "PATCH",
    path: "/admin/api-keys/{keyId}",
    operationId: "updateApiKey",
    tag: "API keys",
    summary: "Update an API key",
    description:
      "Changes label, role, plan or limits; takes effect on the key's next request. The last active admin key cannot lose the admin role (409 `last_admin_key`). Concurrent changes of the same key each apply to the key as the other left it; a change that keeps losing to others answers 409 `concurrent_update` (retry it).",
    access: "api-keys:manage",
    input: { path: KeyIdParam, body: ApiKeyChangesBody },
    output: { status: 200, description: "The key, updated.", body: ApiKeyView },
    errors: ["last_admin_key", "concurrent_update"],
    handle: async ({ path, body }, _actor, { useCases, clock }) =>
      presentApiKey(await useCases.updateApiKey.execute(path.keyId, body), clock.now()),
  }),
  route({
    method: "DELETE",
    path: "/admin/api-keys/{keyId}",
    operationId: "revokeApiKey",
    tag: "API keys",
    summary: "Revoke an API key",
    description:
      "The key answers 401 from then on. The last active admin key cannot be revoked (409 `last_admin_key`).",
    access: "api-keys:manage",
    input: { path: KeyIdParam },
    output: { status: 204, description: "Revoked." },
    errors: ["last_admin_key"],
    handle: ({ path }, _actor, { useCases }) => useCases.revokeApiKey.execute(path.keyId),
  }),
  route({
    method: "POST",
    path: "/admin/api-keys/{keyId}/unban",
    operationId: "unbanApiKey",
    tag: "API keys",
    summary: "Lift a ban",
    access: "api-keys:manage",
    input: { path: KeyIdParam },
    output: { status: 200, description: "The key, no longer banned.", body: ApiKeyView },
    handle: async ({ path }, _actor, { useCases, clock }) =>
      presentApiKey(await useCases.unbanApiKey.execute(path.keyId), clock.now()),
  }),
];
