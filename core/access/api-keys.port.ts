import type { PageRequest } from "../shared/page.ts";
import type { ApiKey, ApiKeySettings } from "./api-key.ts";

export interface ApiKeys {
  add(key: ApiKey): Promise<void>;
  ofId(id: number): Promise<ApiKey | undefined>;
  /** The key with this secret hash unless it is revoked. */
  activeOfSecretHash(secretHash: string): Promise<ApiKey | undefined>;
  /** Ascending id order, at most `limit` items, revoked keys included. */
  list(page: PageRequest): Promise<ApiKey[]>;
  anyActiveWithRole(role: ApiKey["role"]): Promise<boolean>;
  /** Replaces the settings of an active key still at `expected`, in one conditional write; false otherwise. */
  replaceSettings(key: ApiKeySettings & Pick<ApiKey, "id">, expected: ApiKeySettings): Promise<boolean>;
  revoke(id: number, at: Date): Promise<boolean>;
  /**
   * Starts a ban unless one is already running at `at`, so a burst that earns several bans records one. True when it
   * started one.
   */
  ban(id: number, ban: { at: Date; until: Date; forgetBefore: Date }): Promise<boolean>;
  /** Lifts a ban; false when the key is missing or revoked. */
  unban(id: number): Promise<boolean>;
}
