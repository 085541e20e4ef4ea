import type { Clock } from "../shared/clock.port.ts";
import type { PageRequest } from "../shared/page.ts";
import type { ApiKey, ApiKeySettings } from "./api-key.ts";
import type { ApiKeys } from "./api-keys.port.ts";

export const KEY_CACHE_MS = 1_000;
/** So a flood of made-up keys cannot grow the cache. */
const MAX_ENTRIES = 10_000;

interface Entry {
  key: ApiKey | undefined;
  until: number;
}

// Look-ups are remembered for KEY_CACHE_MS: docs/decisions/key-cache.md.
export class CachedApiKeys implements ApiKeys {
  readonly #store: ApiKeys;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #byId = new Map<number, { key: Promise<ApiKey | undefined>; until: number }>();
  /** Look-ups by secret hash under way: the requests that find a key's entry expired together share one store read. */
  readonly #reading = new Map<string, Promise<ApiKey | undefined>>();
  #generation = 0;
  readonly #served = new WeakMap<ApiKey, number>();

  constructor(store: ApiKeys, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  async activeOfSecretHash(secretHash: string): Promise<ApiKey | undefined> {
    const now = this.#clock.now().getTime();
    const cached = this.#entries.get(secretHash);
    if (cached && cached.until > now) {
      if (cached.key) this.#served.set(cached.key, this.#generation);
      return cached.key;
    }
    return this.#reading.get(secretHash) ?? this.#read(secretHash, now);
  }

  async #read(secretHash: string, now: number): Promise<ApiKey | undefined> {
    const generation = this.#generation;
    const reading = this.#store.activeOfSecretHash(secretHash);
    this.#reading.set(secretHash, reading);
    try {
      const key = await reading;
      if (generation === this.#generation) this.#remember(secretHash, key, now);
      return key;
    } finally {
      if (this.#reading.get(secretHash) === reading) this.#reading.delete(secretHash);
    }
  }

  mayBeStale(key: ApiKey): boolean {
    return this.#served.get(key) === this.#generation;
  }

  /** For open streams; revoked keys too. */
  recentOfId(id: number): Promise<ApiKey | undefined> {
    const now = this.#clock.now().getTime();
    const cached = this.#byId.get(id);
    if (cached && cached.until > now) return cached.key;
    const generation = this.#generation;
    const key = this.#store.ofId(id);
    // Shared while it runs; a failed read is not kept.
    const entry = { key, until: now + KEY_CACHE_MS };
    if (this.#byId.size >= MAX_ENTRIES) this.#byId.delete(this.#byId.keys().next().value!);
    this.#byId.set(id, entry);
    const drop = () => {
      if (this.#byId.get(id) === entry) this.#byId.delete(id);
    };
    key.then(() => {
      if (generation !== this.#generation) drop();
    }, drop);
    return key;
  }

  async ofId(id: number): Promise<ApiKey | undefined> {
    const key = await this.#store.ofId(id);
    if (key) this.#entries.delete(key.secretHash);
    return key;
  }

  ofIds(ids: readonly number[]): Promise<ApiKey[]> {
    return this.#store.ofIds(ids);
  }

  list(page: PageRequest): Promise<ApiKey[]> {
    return this.#store.list(page);
  }

  anyActiveWithRole(role: ApiKey["role"]): Promise<boolean> {
    return this.#store.anyActiveWithRole(role);
  }

  add(key: ApiKey): Promise<void> {
    return this.#changing(() => this.#store.add(key));
  }

  replaceSettings(key: ApiKeySettings & Pick<ApiKey, "id">, expected: ApiKeySettings): Promise<boolean> {
    return this.#changing(() => this.#store.replaceSettings(key, expected));
  }

  revoke(id: number, at: Date): Promise<boolean> {
    return this.#changing(() => this.#store.revoke(id, at));
  }

  ban(id: number, ban: { at: Date; until: Date; forgetBefore: Date }): Promise<boolean> {
    return this.#changing(() => this.#store.ban(id, ban));
  }

  unban(id: number): Promise<boolean> {
    return this.#changing(() => this.#store.unban(id));
  }

  async #changing<T>(change: () => Promise<T>): Promise<T> {
    this.#forget();
    try {
      return await change();
    } finally {
      this.#forget();
    }
  }

  #forget(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#byId.clear();
    this.#reading.clear();
  }

  #remember(secretHash: string, key: ApiKey | undefined, now: number): void {
    this.#entries.delete(secretHash);
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(secretHash, { key: key && Object.freeze(key), until: now + KEY_CACHE_MS });
  }
}
