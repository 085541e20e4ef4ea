export interface StoreHealth {
  ping(): Promise<void>;
}
