import { DomainError, notFound } from "../shared/domain-error.ts";
import type { AdminGuard } from "./admin-guard.port.ts";
import type { ApiKey, ApiKeyChanges } from "./api-key.ts";
import { assertLimitsFitPlan, existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { lastAdminKey, trackAdmin } from "./last-admin.ts";

interface Ports {
  apiKeys: ApiKeys;
  adminGuard: AdminGuard;
}

/** Lost races before 409 concurrent_update. */
export const SETTINGS_ATTEMPTS = 5;

const concurrentUpdate = (id: number): DomainError =>
  new DomainError("concurrent_update", `API key ${id} kept changing while this change was applied; try again`);

// Compare-and-set on the settings read; a demotion releases the guard before and after its write.
// Crash points: docs/consistency.md#api-keys-and-the-admin-guard
export class UpdateApiKey {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, changes: ApiKeyChanges): Promise<ApiKey> {
    for (let attempt = 0; attempt < SETTINGS_ATTEMPTS; attempt += 1) {
      const current = await existingApiKey(this.#ports.apiKeys, id);
      if (current.revokedAt) throw notFound("API key", id);
      const plan = changes.plan ?? current.plan;
      const limits = plan === "enterprise" ? (changes.limits ?? current.limits) : changes.limits;
      assertLimitsFitPlan(plan, limits);
      const next = {
        ...current,
        label: changes.label ?? current.label,
        role: changes.role ?? current.role,
        plan,
        limits,
      };
      if (await this.#write(current, next)) return next;
    }
    throw concurrentUpdate(id);
  }

  /** False when the settings are no longer `current`: nothing changed, the guard as before. */
  async #write(current: ApiKey, next: ApiKey): Promise<boolean> {
    const { apiKeys, adminGuard } = this.#ports;
    const demoting = current.role === "admin" && next.role !== "admin";
    if (demoting && !(await adminGuard.release(next.id, { retire: false }))) throw lastAdminKey(next.id);
    if (!(await apiKeys.replaceSettings(next, current))) {
      if (demoting) await trackAdmin(apiKeys, adminGuard, next.id);
      return false;
    }
    if (demoting) await adminGuard.release(next.id, { retire: false });
    if (next.role === "admin" && current.role !== "admin") await trackAdmin(apiKeys, adminGuard, next.id);
    return true;
  }
}
