import type { ApiKey } from "../../core/access/api-key.ts";
import type { ApiKeys } from "../../core/access/api-keys.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { pageOf } from "./memory-paging.ts";

export class MemoryApiKeys implements ApiKeys {
  readonly #keys = new Map<number, ApiKey>();

  async add(key: ApiKey): Promise<void> {
    this.#keys.set(key.id, structuredClone(key));
  }

  async ofId(id: number): Promise<ApiKey | undefined> {
    const key = this.#keys.get(id);
    return key && structuredClone(key);
  }

  async activeOfSecretHash(secretHash: string): Promise<ApiKey | undefined> {
    const key = [...this.#keys.values()].find((k) => k.secretHash === secretHash && !k.revokedAt);
    return key && structuredClone(key);
  }

  async list(page: PageRequest): Promise<ApiKey[]> {
    return pageOf(this.#keys.values(), page);
  }

  async anyActiveWithRole(role: ApiKey["role"]): Promise<boolean> {
    return [...this.#keys.values()].some((k) => k.role === role && !k.revokedAt);
  }

  async replaceSettings(settings: Pick<ApiKey, "id" | "label" | "role" | "plan" | "limits">): Promise<boolean> {
    const key = this.#active(settings.id);
    if (!key) return false;
    const { label, role, plan, limits } = structuredClone(settings);
    Object.assign(key, { label, role, plan, limits });
    return true;
  }

  async revoke(id: number, at: Date): Promise<boolean> {
    const key = this.#active(id);
    if (!key) return false;
    key.revokedAt = new Date(at);
    return true;
  }

  async ban(id: number, ban: { at: Date; until: Date; forgetBefore: Date }): Promise<void> {
    const key = this.#keys.get(id);
    if (!key) return;
    key.bannedUntil = new Date(ban.until);
    key.recentBans = [...key.recentBans.filter((at) => at > ban.forgetBefore), new Date(ban.at)];
  }

  async unban(id: number): Promise<boolean> {
    const key = this.#active(id);
    if (!key) return false;
    key.bannedUntil = undefined;
    return true;
  }

  #active(id: number): ApiKey | undefined {
    const key = this.#keys.get(id);
    return key && !key.revokedAt ? key : undefined;
  }
}
