export interface StoreHealth {
  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
}
