import type { Collection, Db } from "mongodb";
import type { IdAllocator, IdSequence } from "../../core/shared/id-allocator.port.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { DEFAULT_WEDGED_AFTER_MS, guarded, sharedWaitWithin } from "./store-unavailable.ts";

interface CounterDocument {
  /** The sequence's name. */
  _id: string;
  /** The last id of the last block handed out. */
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

/** The first block an instance takes of a sequence, doubled at each next block up to the largest. */
const FIRST_BLOCK = 10;
const LARGEST_BLOCK = 100;

interface Block {
  next: number;
  last: number;
  size: number;
}

/**
 * Ids in blocks: one `$inc` of the sequence's counter by the block's size hands this instance a run of ids no other
 * caller gets, which it gives out one by one without a round trip. Ids stay unique, positive and never reused, and
 * increase within an instance; across instances they are not ordered in time, and the rest of a block is skipped when
 * the instance stops. A copy of the `$inc` that lands late (a driver's retry) only skips a block.
 */
export class MongoIdAllocator implements IdAllocator {
  readonly #counters: Collection<CounterDocument>;
  readonly #blocks = new Map<IdSequence, Block>();
  /** One block taken at a time per sequence: callers meanwhile wait for it. */
  readonly #taking = new Map<IdSequence, Promise<void>>();
  /** How long callers wait for a block being taken before it counts as wedged and the next caller takes another. */
  readonly #wedgedAfterMs: number;
  constructor(db: Db, options: { wedgedAfterMs?: number } = {}) {
    this.#counters = db.collection<CounterDocument>("counters");
    this.#wedgedAfterMs = options.wedgedAfterMs ?? DEFAULT_WEDGED_AFTER_MS;
  }

  async next(sequence: IdSequence): Promise<number> {
    for (;;) {
      const block = this.#blocks.get(sequence);
      if (block && block.next <= block.last) return block.next++;
      await this.#take(sequence, block);
    }
  }

  #take(sequence: IdSequence, spent: Block | undefined): Promise<void> {
    let taking = this.#taking.get(sequence);
    if (!taking) {
      const size = spent ? Math.min(spent.size * 2, LARGEST_BLOCK) : FIRST_BLOCK;
      const started = this.#takeBlock(sequence, size);
      taking = started;
      this.#taking.set(sequence, started);
      const forget = () => this.#taking.get(sequence) === started && this.#taking.delete(sequence);
      void started.then(forget, forget);
    }
    const shared = taking;
    // A take that lands after it was given up only skips its block.
    return sharedWaitWithin(shared, this.#wedgedAfterMs).catch((error: unknown) => {
      if (this.#taking.get(sequence) === shared) this.#taking.delete(sequence);
      throw error;
    });
  }

  #takeBlock(sequence: IdSequence, size: number): Promise<void> {
    return guarded(async () => {
      const counter = await this.#counters.findOneAndUpdate(
        { _id: sequence },
        { $inc: { value: size } },
        { returnDocument: "after", projection: { _id: 0, value: 1 } },
      );
      if (!counter)
        throw new Error(`The ${sequence} counter does not exist: the database was not prepared at start-up`);
      this.#blocks.set(sequence, { next: counter.value - size + 1, last: counter.value, size });
    });
  }
}
