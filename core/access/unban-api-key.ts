import { DomainError, notFound } from "../shared/domain-error.ts";
import type { ApiKey } from "./api-key.ts";
import { existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";

// A revoked key stays not found; the message says why, so an operator is not misled.
const revoked = (id: number): DomainError => new DomainError("not_found", `API key ${id} is revoked`);

export class UnbanApiKey {
  readonly #apiKeys: ApiKeys;
  constructor(apiKeys: ApiKeys) {
    this.#apiKeys = apiKeys;
  }

  async execute(id: number): Promise<ApiKey> {
    if ((await existingApiKey(this.#apiKeys, id)).revokedAt) throw revoked(id);
    if (!(await this.#apiKeys.unban(id))) {
      // Revoked in the meantime, or gone: say which.
      if ((await existingApiKey(this.#apiKeys, id)).revokedAt) throw revoked(id);
      throw notFound("API key", id);
    }
    return await existingApiKey(this.#apiKeys, id);
  }
}
