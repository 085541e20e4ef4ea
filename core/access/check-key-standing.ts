import type { Clock } from "../shared/clock.port.ts";
import type { ApiKey } from "./api-key.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { can, type Actor, type Permission } from "./permissions.ts";

/** Why a key may no longer go on with what it was let in for. */
export type KeyStandingLoss = "key_revoked" | "key_banned" | "forbidden";

interface Ports {
  /** `recentOfId`: a cached view (CachedApiKeys), read again within its bound; else every check reads the store. */
  apiKeys: ApiKeys & { recentOfId?(id: number): Promise<ApiKey | undefined> };
  clock: Clock;
}

/**
 * Access that lasts (an open event stream) is checked again, not only at its start: the key must still exist, be
 * unrevoked and unbanned, and its role still hold the permission.
 */
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
