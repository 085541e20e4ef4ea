import type { Clock } from "../shared/clock.port.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { CreateApiKey } from "./create-api-key.ts";
import type { Secrets } from "./secrets.port.ts";

interface Ports {
  apiKeys: ApiKeys;
  ids: IdAllocator;
  secrets: Secrets;
  clock: Clock;
}

/**
 * Start-up: a configured admin secret becomes a valid admin key (plan business); without one, and with no
 * admin key in the store, a new admin key is made and its secret returned so it can be printed once.
 */
export class EnsureAdminKey {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(configuredSecret: string | undefined): Promise<{ generatedSecret: string | undefined }> {
    const { apiKeys, secrets } = this.#ports;
    const create = new CreateApiKey(this.#ports);
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
