import type { Collection, Db } from "mongodb";
import type { IdAllocator, IdSequence } from "../../core/shared/id-allocator.port.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { guarded } from "./store-unavailable.ts";

interface CounterDocument {
  /** The sequence's name. */
  _id: string;
  /** The last id handed out. */
  value: number;
}

/** One counter per sequence, incremented by the server: every caller gets its own value, across instances. */
export class MongoIdAllocator implements IdAllocator {
  readonly #counters: Collection<CounterDocument>;
  constructor(db: Db) {
    this.#counters = db.collection<CounterDocument>("counters");
  }

  next(sequence: IdSequence): Promise<number> {
    return guarded(async () => {
      try {
        return await this.#increment(sequence);
      } catch (error) {
        // Two first-ever calls may both try to insert the counter; the loser finds it on a second try.
        if (!isDuplicateKeyError(error)) throw error;
        return await this.#increment(sequence);
      }
    });
  }

  async #increment(sequence: IdSequence): Promise<number> {
    const counter = await this.#counters.findOneAndUpdate(
      { _id: sequence },
      { $inc: { value: 1 } },
      { upsert: true, returnDocument: "after" },
    );
    if (!counter) throw new Error(`The ${sequence} counter was not returned by an upsert`);
    return counter.value;
  }
}
