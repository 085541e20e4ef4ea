import { notFound } from "../shared/domain-error.ts";
import type { AdminGuard } from "./admin-guard.port.ts";
import type { ApiKey, ApiKeyChanges } from "./api-key.ts";
import { assertLimitsFitPlan, existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { lastAdminKey, trackAdmin } from "./last-admin.ts";

interface Ports {
  apiKeys: ApiKeys;
  adminGuard: AdminGuard;
}

/**
 * Changes take effect on the key's next request: every request reads the key afresh. A demoted admin is released
 * by the guard before the change is written, a promoted key tracked after (see AdminGuard).
 */
export class UpdateApiKey {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, changes: ApiKeyChanges): Promise<ApiKey> {
    const { apiKeys, adminGuard } = this.#ports;
    const current = await existingApiKey(apiKeys, id);
    if (current.revokedAt) throw notFound("API key", id);
    const plan = changes.plan ?? current.plan;
    const limits = plan === "enterprise" ? (changes.limits ?? current.limits) : changes.limits;
    assertLimitsFitPlan(plan, limits);
    const next = { ...current, label: changes.label ?? current.label, role: changes.role ?? current.role, plan, limits };
    if (current.role === "admin" && next.role !== "admin" && !(await adminGuard.release(id, { retire: false }))) throw lastAdminKey(id);
    if (!(await apiKeys.replaceSettings(next))) throw notFound("API key", id);
    if (next.role === "admin" && current.role !== "admin") await trackAdmin(apiKeys, adminGuard, id);
    return next;
  }
}
