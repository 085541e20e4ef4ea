import { lookahead, toPage, type Page, type PageRequest } from "../shared/page.ts";
import type { ApiKey } from "./api-key.ts";
import type { ApiKeys } from "./api-keys.port.ts";

export class ListApiKeys {
  readonly #apiKeys: ApiKeys;
  constructor(apiKeys: ApiKeys) {
    this.#apiKeys = apiKeys;
  }

  async execute(page: PageRequest): Promise<Page<ApiKey>> {
    return toPage(await this.#apiKeys.list(lookahead(page)), page, (k) => k.id);
  }
}
