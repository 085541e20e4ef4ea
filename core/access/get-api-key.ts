import type { ApiKey } from "./api-key.ts";
import { existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";

export class GetApiKey {
  readonly #apiKeys: ApiKeys;
  constructor(apiKeys: ApiKeys) {
    this.#apiKeys = apiKeys;
  }

  execute(id: number): Promise<ApiKey> {
    return existingApiKey(this.#apiKeys, id);
  }
}
