import type { Clock } from "../shared/clock.port.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { ApiKey, ApiKeyDraft } from "./api-key.ts";
import { assertLimitsFitPlan } from "./api-key-rules.ts";
import type { AdminGuard } from "./admin-guard.port.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { trackAdmin } from "./last-admin.ts";
import type { Secrets } from "./secrets.port.ts";

export interface CreateApiKeyPorts {
  apiKeys: ApiKeys;
  adminGuard: AdminGuard;
  ids: IdAllocator;
  secrets: Secrets;
  clock: Clock;
}

export interface IssuedApiKey {
  key: ApiKey;
  /** Shown once, never stored. */
  secret: string;
}

export class CreateApiKey {
  readonly #ports: CreateApiKeyPorts;
  constructor(ports: CreateApiKeyPorts) {
    this.#ports = ports;
  }

  async execute(draft: ApiKeyDraft, secret?: string): Promise<IssuedApiKey> {
    const { apiKeys, ids, secrets, clock } = this.#ports;
    assertLimitsFitPlan(draft.plan, draft.limits);
    const issued = secret ?? secrets.generate();
    const key: ApiKey = {
      id: await ids.next("api-keys"),
      label: draft.label,
      role: draft.role,
      plan: draft.plan,
      limits: draft.limits,
      secretHash: secrets.hash(issued),
      createdAt: clock.now(),
      revokedAt: undefined,
      bannedUntil: undefined,
      recentBans: [],
    };
    await apiKeys.add(key);
    if (key.role === "admin") await trackAdmin(apiKeys, this.#ports.adminGuard, key.id);
    return { key, secret: issued };
  }
}
