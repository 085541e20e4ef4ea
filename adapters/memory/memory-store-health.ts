import type { StoreHealth } from "../../core/shared/store-health.port.ts";

/** Memory always answers. */
export class MemoryStoreHealth implements StoreHealth {
  async ping(): Promise<void> {}
}
