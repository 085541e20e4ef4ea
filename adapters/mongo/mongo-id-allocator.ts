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

const SEQUENCES = Object.keys({
  pets: true,
  categories: true,
  orders: true,
  "api-keys": true,
  webhooks: true,
} satisfies Record<IdSequence, true>) as IdSequence[];

/**
 * Creates every counter that does not exist yet, at start-up: an insert per sequence, where a duplicate key means
 * another instance (or an earlier start) created it, so counts are never reset. Creating counters here rather than by
 * upserting on each allocation matters: racing upserts of one absent document may each report the insert as theirs on
 * some engines (FerretDB v2 on DocumentDB handed out 91 distinct ids to 100 racing first calls).
 */
export const createCounters = async (db: Db): Promise<void> => {
  const counters = db.collection<CounterDocument>("counters");
  await Promise.all(
    SEQUENCES.map(async (sequence) => {
      try {
        await counters.insertOne({ _id: sequence, value: 0 });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    }),
  );
};

/** One counter per sequence, incremented by the server: every caller gets its own value, across instances. */
export class MongoIdAllocator implements IdAllocator {
  readonly #counters: Collection<CounterDocument>;
  constructor(db: Db) {
    this.#counters = db.collection<CounterDocument>("counters");
  }

  next(sequence: IdSequence): Promise<number> {
    return guarded(async () => {
      const counter = await this.#counters.findOneAndUpdate(
        { _id: sequence },
        { $inc: { value: 1 } },
        { returnDocument: "after", projection: { _id: 0, value: 1 } },
      );
      if (!counter)
        throw new Error(`The ${sequence} counter does not exist: the database was not prepared at start-up`);
      return counter.value;
    });
  }
}
