import type { ApiKey, ApiKeySettings } from "../../core/access/api-key.ts";
import type { ApiKeys } from "../../core/access/api-keys.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { pageOf } from "./memory-paging.ts";
import { sameLimits } from "../../core/rate-limiting/windows.ts";

/** A copy that shares nothing mutable with the original (cheaper than structuredClone on the hot path). */
const copyOf = (k: ApiKey): ApiKey => ({
  ...k,
  limits: k.limits && { ...k.limits },
  createdAt: new Date(k.createdAt),
  revokedAt: k.revokedAt && new Date(k.revokedAt),
  bannedUntil: k.bannedUntil && new Date(k.bannedUntil),
  recentBans: k.recentBans.map((at) => new Date(at)),
});

const sameSettings = (a: ApiKeySettings, b: ApiKeySettings): boolean =>
  a.label === b.label && a.role === b.role && a.plan === b.plan && sameLimits(a.limits, b.limits);

export class MemoryApiKeys implements ApiKeys {
  readonly #keys = new Map<number, ApiKey>();
  /** The look-up every request makes: secret hash → id of the active key. */
  readonly #activeByHash = new Map<string, number>();

  async add(key: ApiKey): Promise<void> {
    this.#keys.set(key.id, copyOf(key));
    if (!key.revokedAt) this.#activeByHash.set(key.secretHash, key.id);
  }

  async ofId(id: number): Promise<ApiKey | undefined> {
    const key = this.#keys.get(id);
    return key && copyOf(key);
  }

  async ofIds(ids: readonly number[]): Promise<ApiKey[]> {
    return ids.flatMap((id) => {
      const key = this.#keys.get(id);
      return key ? [copyOf(key)] : [];
    });
  }

  async activeOfSecretHash(secretHash: string): Promise<ApiKey | undefined> {
    const id = this.#activeByHash.get(secretHash);
    const key = id === undefined ? undefined : this.#active(id);
    return key && copyOf(key);
  }

  async list(page: PageRequest): Promise<ApiKey[]> {
    return pageOf(this.#keys.values(), page);
  }

  async anyActiveWithRole(role: ApiKey["role"]): Promise<boolean> {
    return [...this.#keys.values()].some((k) => k.role === role && !k.revokedAt);
  }

  async replaceSettings(settings: ApiKeySettings & Pick<ApiKey, "id">, expected: ApiKeySettings): Promise<boolean> {
    const key = this.#active(settings.id);
    if (!key || !sameSettings(key, expected)) return false;
    const { label, role, plan, limits } = structuredClone(settings);
    Object.assign(key, { label, role, plan, limits });
    return true;
  }

  async revoke(id: number, at: Date): Promise<boolean> {
    const key = this.#active(id);
    if (!key) return false;
    key.revokedAt = new Date(at);
    if (this.#activeByHash.get(key.secretHash) === id) this.#activeByHash.delete(key.secretHash);
    return true;
  }

  async ban(id: number, ban: { at: Date; until: Date; forgetBefore: Date }): Promise<boolean> {
    const key = this.#keys.get(id);
    if (!key || (key.bannedUntil && key.bannedUntil > ban.at)) return false;
    key.bannedUntil = new Date(ban.until);
    key.recentBans = [...key.recentBans.filter((at) => at > ban.forgetBefore), new Date(ban.at)];
    return true;
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
