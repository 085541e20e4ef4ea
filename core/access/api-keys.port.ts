import type { PageRequest } from "../shared/page.ts";
import type { ApiKey, ApiKeySettings } from "./api-key.ts";

export interface ApiKeys {
  add(key: ApiKey): Promise<void>;
  ofId(id: number): Promise<ApiKey | undefined>;
  /** Those that exist, revoked too, in one read, in any order; at most 100 ids. */
  ofIds(ids: readonly number[]): Promise<ApiKey[]>;
  activeOfSecretHash(secretHash: string): Promise<ApiKey | undefined>;
  /** By id; revoked keys included. */
  list(page: PageRequest): Promise<ApiKey[]>;
  anyActiveWithRole(role: ApiKey["role"]): Promise<boolean>;
  /** One conditional write: only while the key is active with settings `expected`. */
  replaceSettings(key: ApiKeySettings & Pick<ApiKey, "id">, expected: ApiKeySettings): Promise<boolean>;
  revoke(id: number, at: Date): Promise<boolean>;
  /** Unless one is running at `at`, so a burst that earns several records one; true when it started one. */
  ban(id: number, ban: { at: Date; until: Date; forgetBefore: Date }): Promise<boolean>;
  /** False when the key is missing or revoked. */
  unban(id: number): Promise<boolean>;
}
