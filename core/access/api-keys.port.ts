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
  /**
   * Replaces label, role, plan and limits of an active key whose settings are still `expected` (limits compared
   * field by field), in one conditional write; false when the key is missing, revoked or its settings differ.
   */
  replaceSettings(key: ApiKeySettings & Pick<ApiKey, "id">, expected: ApiKeySettings): Promise<boolean>;
  revoke(id: number, at: Date): Promise<boolean>;
  /**
   * Starts a ban: sets `bannedUntil` and records `at` among the recent bans (keeping those after `forgetBefore`).
   * Atomically does nothing while a ban is already running at `at`, so one burst of refused requests that
   * earns several bans at once records only one. True when this call started the ban.
   */
  ban(id: number, ban: { at: Date; until: Date; forgetBefore: Date }): Promise<boolean>;
  /** Lifts a ban; false when the key is missing or revoked. */
  unban(id: number): Promise<boolean>;
}
