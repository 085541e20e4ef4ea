import { CreateApiKey, type CreateApiKeyPorts } from "./create-api-key.ts";
import { trackAdmin } from "./last-admin.ts";

// Whatever a crash left: an admin key exists, and the guard tracks exactly the active admin keys.
// Crash points: docs/consistency.md#api-keys-and-the-admin-guard
export class EnsureAdminKey {
  readonly #ports: CreateApiKeyPorts;
  constructor(ports: CreateApiKeyPorts) {
    this.#ports = ports;
  }

  async execute(configuredSecret: string | undefined): Promise<{ generatedSecret: string | undefined }> {
    const result = await this.#ensure(configuredSecret);
    await this.#releaseNonAdmins();
    return result;
  }

  async #ensure(configuredSecret: string | undefined): Promise<{ generatedSecret: string | undefined }> {
    const { apiKeys, secrets } = this.#ports;
    const create = new CreateApiKey(this.#ports);
    await this.#trackActiveAdmins();
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

  async #releaseNonAdmins(): Promise<void> {
    const { apiKeys, adminGuard } = this.#ports;
    for (const id of await adminGuard.tracked()) {
      const key = await apiKeys.ofId(id);
      if (!key || key.revokedAt || key.role !== "admin")
        await adminGuard.release(id, { retire: key?.revokedAt !== undefined });
    }
  }

  async #trackActiveAdmins(): Promise<void> {
    const { apiKeys, adminGuard } = this.#ports;
    for (let after: number | undefined; ;) {
      const keys = await apiKeys.list({ limit: 100, after });
      for (const key of keys) if (key.role === "admin" && !key.revokedAt) await trackAdmin(apiKeys, adminGuard, key.id);
      if (keys.length < 100) return;
      after = keys.at(-1)!.id;
    }
  }
}
