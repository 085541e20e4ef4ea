import type { Clock } from "../shared/clock.port.ts";
import type { ApiKey } from "./api-key.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { can, type Actor, type Permission } from "./permissions.ts";

export type KeyStandingLoss = "key_revoked" | "key_banned" | "forbidden";

interface Ports {
  /** With `recentOfId` (CachedApiKeys), checks read the store once per key and bound. */
  apiKeys: ApiKeys & { recentOfId?(id: number): Promise<ApiKey | undefined> };
  clock: Clock;
}

/** Access that lasts (an open event stream) is checked again, not only at its start. */
export class CheckKeyStanding {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(actor: Actor, permission: Permission): Promise<KeyStandingLoss | undefined> {
    const { apiKeys, clock } = this.#ports;
    const key = apiKeys.recentOfId ? await apiKeys.recentOfId(actor.keyId) : await apiKeys.ofId(actor.keyId);
    if (!key || key.revokedAt) return "key_revoked";
    if (key.bannedUntil && key.bannedUntil > clock.now()) return "key_banned";
    if (!can({ keyId: key.id, role: key.role }, permission)) return "forbidden";
    return undefined;
  }
}
