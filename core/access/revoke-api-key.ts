import type { Clock } from "../shared/clock.port.ts";
import { existingApiKey } from "./api-key-rules.ts";
import type { AdminGuard } from "./admin-guard.port.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { lastAdminKey } from "./last-admin.ts";

interface Ports {
  apiKeys: ApiKeys;
  adminGuard: AdminGuard;
  clock: Clock;
}

/**
 * The guard lets go of the key (and retires it for good) before the key is revoked: a crash in between leaves an
 * active key the guard no longer counts, never a counted key that is revoked. Whatever its role: a key promoted
 * concurrently is then never tracked.
 */
export class RevokeApiKey {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number): Promise<void> {
    const { apiKeys, adminGuard, clock } = this.#ports;
    const current = await existingApiKey(apiKeys, id);
    if (current.revokedAt) return; // revoking twice is harmless
    if (!(await adminGuard.release(id, { retire: true }))) throw lastAdminKey(id);
    await apiKeys.revoke(id, clock.now());
  }
}
