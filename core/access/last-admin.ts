import { DomainError } from "../shared/domain-error.ts";
import type { AdminGuard } from "./admin-guard.port.ts";
import type { ApiKeys } from "./api-keys.port.ts";

export const lastAdminKey = (id: number): DomainError =>
  new DomainError("last_admin_key", `API key ${id} is the last active admin key; create another admin key first`);

/** Tracks first, then checks the role, so a racing demotion or revocation is never missed. */
export const trackAdmin = async (apiKeys: ApiKeys, guard: AdminGuard, id: number): Promise<void> => {
  await guard.track(id);
  const key = await apiKeys.ofId(id);
  if (!key || key.revokedAt || key.role !== "admin") await guard.release(id, { retire: key?.revokedAt !== undefined });
};
