import type { Clock } from "../shared/clock.port.ts";
import { DomainError, notFound } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import { lookahead, toPage, type Page, type PageRequest } from "../shared/page.ts";
import type { ApiKey, ApiKeyChanges, ApiKeyDraft, Plan, RateLimits } from "./api-key.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import type { Secrets } from "./secrets.port.ts";

interface Ports {
  apiKeys: ApiKeys;
  ids: IdAllocator;
  secrets: Secrets;
  clock: Clock;
}

/** Custom limits belong to the enterprise plan alone, and it cannot do without them. */
const assertLimitsFitPlan = (plan: Plan, limits: RateLimits | undefined): void => {
  if (plan === "enterprise" && !limits) {
    throw new DomainError("validation_failed", "The enterprise plan needs limits: { perMinute, perDay }");
  }
  if (plan !== "enterprise" && limits) {
    throw new DomainError("validation_failed", `The ${plan} plan has fixed limits; custom limits need the enterprise plan`);
  }
};

abstract class ApiKeyUseCase {
  protected readonly ports: Ports;
  constructor(ports: Ports) {
    this.ports = ports;
  }

  protected async existing(id: number): Promise<ApiKey> {
    const key = await this.ports.apiKeys.ofId(id);
    if (!key) throw notFound("API key", id);
    return key;
  }
}

export interface IssuedApiKey {
  key: ApiKey;
  /** Shown once, never stored. */
  secret: string;
}

export class CreateApiKey extends ApiKeyUseCase {
  async execute(draft: ApiKeyDraft, secret?: string): Promise<IssuedApiKey> {
    const { apiKeys, ids, secrets, clock } = this.ports;
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
    return { key, secret: issued };
  }
}

export class ListApiKeys extends ApiKeyUseCase {
  async execute(page: PageRequest): Promise<Page<ApiKey>> {
    return toPage(await this.ports.apiKeys.list(lookahead(page)), page, (k) => k.id);
  }
}

export class GetApiKey extends ApiKeyUseCase {
  execute(id: number): Promise<ApiKey> {
    return this.existing(id);
  }
}

/** Changes take effect on the key's next request: every request reads the key afresh. */
export class UpdateApiKey extends ApiKeyUseCase {
  async execute(id: number, changes: ApiKeyChanges): Promise<ApiKey> {
    const current = await this.existing(id);
    if (current.revokedAt) throw notFound("API key", id);
    const plan = changes.plan ?? current.plan;
    const limits = plan === "enterprise" ? (changes.limits ?? current.limits) : changes.limits;
    assertLimitsFitPlan(plan, limits);
    const next = { ...current, label: changes.label ?? current.label, role: changes.role ?? current.role, plan, limits };
    if (!(await this.ports.apiKeys.replaceSettings(next))) throw notFound("API key", id);
    return next;
  }
}

export class RevokeApiKey extends ApiKeyUseCase {
  async execute(id: number): Promise<void> {
    const current = await this.existing(id);
    if (current.revokedAt) return; // revoking twice is harmless
    await this.ports.apiKeys.revoke(id, this.ports.clock.now());
  }
}

export class UnbanApiKey extends ApiKeyUseCase {
  async execute(id: number): Promise<ApiKey> {
    await this.existing(id);
    if (!(await this.ports.apiKeys.unban(id))) throw notFound("API key", id);
    return this.existing(id);
  }
}

/**
 * Start-up: a configured admin secret becomes a valid admin key (plan business); without one, and with no
 * admin key in the store, a new admin key is made and its secret returned so it can be printed once.
 */
export class EnsureAdminKey extends ApiKeyUseCase {
  async execute(configuredSecret: string | undefined): Promise<{ generatedSecret: string | undefined }> {
    const { apiKeys, secrets } = this.ports;
    const create = new CreateApiKey(this.ports);
    if (configuredSecret) {
      const exists = () => apiKeys.activeOfSecretHash(secrets.hash(configuredSecret));
      if (!(await exists())) {
        const draft = { label: "bootstrap admin (PETSTORE_ADMIN_KEY)", role: "admin", plan: "business" } as const;
        // Several instances may start at once: losing the race to create the same key is fine.
        await create.execute(draft, configuredSecret).catch(async (error: unknown) => {
          if (!(await exists())) throw error;
        });
      }
      return { generatedSecret: undefined };
    }
    if (await apiKeys.anyActiveWithRole("admin")) return { generatedSecret: undefined };
    const { secret } = await create.execute({ label: "bootstrap admin (generated)", role: "admin", plan: "business" });
    return { generatedSecret: secret };
  }
}
