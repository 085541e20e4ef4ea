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

/** Reads and conditional writes lost to competing changes before the request gives up. */
export const SETTINGS_ATTEMPTS = 5;

const concurrentUpdate = (id: number): DomainError =>
  new DomainError("concurrent_update", `API key ${id} kept changing while this change was applied; try again`);

/**
 * Changes take effect on the key's next request: every request reads the key afresh. The settings are written
 * only if they are still those read (compare-and-set); a change that lost to a competing one is read and applied
 * again, so a label change never writes back a role (or plan, or limits) another request has just changed.
 *
 * The admin guard (see AdminGuard) must never count a key that is not an active admin (it would let the last real
 * admin go); missing one only refuses too much. Start-up tracks every active admin again and lets go of every
 * tracked key that is no active admin (EnsureAdminKey). A demotion releases the key before its write (so "not the
 * last admin" and the release are one step) and again after it: a promotion racing it tracks the key and then
 * reads the role, the demotion writes the role and then releases, so one of the two always sees the other.
 * Crash points: a demotion after its release (before its write, or after a refused write before it tracks the key
 * back) leaves an untracked admin: careful side. A promotion after its write, before tracking: the same. After its
 * write, before its second release, a demotion leaves a tracked non-admin only if a promotion tracked it in between;
 * a promotion after tracking, before its check, only if a demotion wrote meanwhile: both repaired at start-up.
 */
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
      const next = { ...current, label: changes.label ?? current.label, role: changes.role ?? current.role, plan, limits };
      if (await this.#write(current, next)) return next;
    }
    throw concurrentUpdate(id);
  }

  /** False when the key's settings are no longer `current` (or it is gone): nothing changed, the guard is as before. */
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
