import { notFound } from "../shared/domain-error.ts";
import type { ApiKey } from "./api-key.ts";
import { existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";

export class UnbanApiKey {
  readonly #apiKeys: ApiKeys;
  constructor(apiKeys: ApiKeys) {
    this.#apiKeys = apiKeys;
  }

  async execute(id: number): Promise<ApiKey> {
    await existingApiKey(this.#apiKeys, id);
    if (!(await this.#apiKeys.unban(id))) throw notFound("API key", id);
    return await existingApiKey(this.#apiKeys, id);
  }
}
