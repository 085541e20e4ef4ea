/**
 * The active admin keys, in one record changed by single conditional writes, so two instances cannot both remove
 * the last admin (docs/consistency.md, "API keys and the admin guard").
 */
export interface AdminGuard {
  /** Tracks the key as an admin, unless it was ever retired (revoked keys never come back). */
  track(id: number): Promise<void>;
  /**
   * Stops tracking the key unless it is the only tracked admin (false, nothing changed); `retire` also marks it revoked.
   */
  release(id: number, options: { retire: boolean }): Promise<boolean>;
  /** The tracked keys, ascending. */
  tracked(): Promise<number[]>;
}
