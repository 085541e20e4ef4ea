import type { Db } from "mongodb";
import type { StoreHealth } from "../../core/shared/store-health.port.ts";
import { guarded } from "./store-unavailable.ts";

export class MongoStoreHealth implements StoreHealth {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  ping(): Promise<void> {
    return guarded(async () => {
      await this.#db.command({ ping: 1 });
    });
  }
}
