/**
 * The active admin keys, tracked in one record whose every change is a single conditional write: the decision
 * "this is not the last admin" and the removal happen in the same step, so two instances that revoke or demote
 * two admins at once cannot both pass. Invariant: every tracked key is an active admin key (keys are tracked after
 * they become admins, and released before they stop being ones); an admin key may be untracked after a crash in
 * between, which only makes the guard more careful. Start-up tracks every active admin key again, and lets go of
 * tracked keys that are no active admins (two racing changes of one key interrupted by a crash can leave one).
 */
export interface AdminGuard {
  /** Tracks the key as an admin, unless it was ever retired (revoked keys never come back). */
  track(id: number): Promise<void>;
  /**
   * Stops tracking the key unless it is the only tracked admin: false then, and nothing changes. `retire` also
   * records it as revoked, in the same write. An untracked key is released (true) at once.
   */
  release(id: number, options: { retire: boolean }): Promise<boolean>;
  /** The tracked keys, ascending. */
  tracked(): Promise<number[]>;
}
