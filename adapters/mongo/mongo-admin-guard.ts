import type { Collection, Db } from "mongodb";
import type { AdminGuard } from "../../core/access/admin-guard.port.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { guarded } from "./store-unavailable.ts";

interface GuardDocument {
  _id: "admin-keys";
  /** The tracked active admin keys. */
  admins: number[];
  /** Keys released for good (revoked): never tracked again. */
  retired: number[];
}

const ID = "admin-keys" as const;

/** One document; every change is one conditional update of it (no transactions needed). */
export class MongoAdminGuard implements AdminGuard {
  readonly #guard: Collection<GuardDocument>;
  constructor(db: Db) {
    this.#guard = db.collection<GuardDocument>("admin_guard");
  }

  track(id: number): Promise<void> {
    return guarded(async () => {
      await this.#ensure();
      await this.#guard.updateOne({ _id: ID, retired: { $ne: id } }, { $addToSet: { admins: id } });
    });
  }

  release(id: number, { retire }: { retire: boolean }): Promise<boolean> {
    return guarded(async () => {
      await this.#ensure();
      const result = await this.#guard.updateOne(
        // Not tracked, or not the only one tracked: decided by the server in the same write that removes it.
        { _id: ID, $or: [{ admins: { $ne: id } }, { "admins.1": { $exists: true } }] },
        retire ? { $pull: { admins: id }, $addToSet: { retired: id } } : { $pull: { admins: id } },
      );
      return result.matchedCount === 1;
    });
  }

  tracked(): Promise<number[]> {
    return guarded(async () => {
      const doc = await this.#guard.findOne({ _id: ID });
      return [...(doc?.admins ?? [])].sort((a, b) => a - b);
    });
  }

  /** The document exists from the first use on; two first uses at once both end up with it. */
  async #ensure(): Promise<void> {
    try {
      await this.#guard.updateOne({ _id: ID }, { $setOnInsert: { admins: [], retired: [] } }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
}
