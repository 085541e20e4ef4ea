// Single conditional writes on one record: two instances cannot both remove the last admin.
// Crash points: docs/consistency.md#api-keys-and-the-admin-guard
export interface AdminGuard {
  /** Not a retired key: revoked keys never come back. */
  track(id: number): Promise<void>;
  /** False, nothing changed, for the only tracked admin; `retire` marks the key revoked too. */
  release(id: number, options: { retire: boolean }): Promise<boolean>;
  tracked(): Promise<number[]>;
}
