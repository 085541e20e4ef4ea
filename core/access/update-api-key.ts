import { notFound } from "../shared/domain-error.ts";
import type { ApiKey, ApiKeyChanges } from "./api-key.ts";
import { assertLimitsFitPlan, existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";

/** Changes take effect on the key's next request: every request reads the key afresh. */
export class UpdateApiKey {
  readonly #apiKeys: ApiKeys;
  constructor(apiKeys: ApiKeys) {
    this.#apiKeys = apiKeys;
  }

  async execute(id: number, changes: ApiKeyChanges): Promise<ApiKey> {
    const current = await existingApiKey(this.#apiKeys, id);
    if (current.revokedAt) throw notFound("API key", id);
    const plan = changes.plan ?? current.plan;
    const limits = plan === "enterprise" ? (changes.limits ?? current.limits) : changes.limits;
    assertLimitsFitPlan(plan, limits);
    const next = { ...current, label: changes.label ?? current.label, role: changes.role ?? current.role, plan, limits };
    if (!(await this.#apiKeys.replaceSettings(next))) throw notFound("API key", id);
    return next;
  }
}
