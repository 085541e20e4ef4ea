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

// Release before revoking: a crash in between leaves an uncounted active key, the careful side.
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
