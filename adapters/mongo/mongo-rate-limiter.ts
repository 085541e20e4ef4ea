import { type Collection, type Db, type Filter } from "mongodb";
import type { Consumption, RateLimiter, WindowSpec } from "../../core/rate-limiting/rate-limiter.port.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { guarded } from "./store-unavailable.ts";

/**
 * One document per subject and day window. Window keys become field names, so they must not contain "." or
 * start with "$" (the core's are `m<minute number>` and `d<day number>`).
 *
 * Counters of earlier minutes stay in the document until the day's document is swept: at most 1,440 small
 * fields a day, never read again, and cheaper than an extra write per request to remove them. (Returning only
 * the current minute's field with a projection would trim the reply, but FerretDB 1.x rejects projections in
 * findAndModify.)
 */
interface RateWindowDocument {
  /** `<subject>|<day window key>` */
  _id: string;
  /** Requests admitted in the day window. */
  day: number;
  /** Requests refused while the day window was full. */
  dayStrikes?: number;
  /** Requests admitted per minute window, by window key. */
  minutes?: Record<string, number>;
  /** Requests refused per minute window (while the day was not full), by window key. */
  minuteStrikes?: Record<string, number>;
  /** When the day window ends. */
  expiresAt: Date;
}

/** A day's document is removed this long after the day ended: instances whose clocks lag a little still find it. */
const EXPIRED_WINDOW_GRACE_MS = 10 * 60_000;
/** A failed upsert that no full window explains was a race on creating the document: it exists on the retry. */
const ATTEMPTS = 3;

/**
 * Expired documents are removed by a sweep the limiter runs itself, so no server feature is needed. There is
 * deliberately no TTL index: FerretDB 1.x has none, and asking it for one over an existing plain index crashes
 * its connection instead of answering IndexOptionsConflict.
 */
export const createRateWindowIndexes = async (db: Db): Promise<void> => {
  await db.collection("rate_windows").createIndex({ expiresAt: 1 });
};

/**
 * Fixed windows counted by the server. An admitted request costs one round trip: a single conditional upsert
 * that counts it in both windows only if neither is full. When a window is full, the filter misses the existing
 * document and the upsert's insert collides on `_id` (duplicate key), so nothing is counted; one more update
 * then counts a strike against the refusing window (the day window when it is full, else the minute window).
 */
export class MongoRateLimiter implements RateLimiter {
  readonly #windows: Collection<RateWindowDocument>;
  #sweptUpTo = Number.NEGATIVE_INFINITY;
  constructor(db: Db) {
    this.#windows = db.collection<RateWindowDocument>("rate_windows");
  }

  consume(subject: string, minute: WindowSpec, day: WindowSpec): Promise<Consumption> {
    return guarded(async () => {
      this.#sweepOncePerMinute(minute);
      const id = `${subject}|${day.key}`;
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (minute.limit > 0 && day.limit > 0) {
          const admitted = await this.#admit(id, minute, day);
          if (admitted) return admitted;
        } else {
          await this.#ensureDocument(id, day); // a window of limit 0 admits nothing, but strikes need a document
        }
        const refused = await this.#strike(id, minute, day);
        if (refused) return refused;
      }
      throw new Error(`Rate window ${id} changed under ${ATTEMPTS} attempts to count a request`);
    });
  }

  /** Deletes the documents of days that ended before `before`; returns how many. */
  async sweepExpired(before: Date): Promise<number> {
    return (await this.#windows.deleteMany({ expiresAt: { $lt: before } })).deletedCount;
  }

  async #admit(id: string, minute: WindowSpec, day: WindowSpec): Promise<Consumption | undefined> {
    const minuteField = `minutes.${minute.key}`;
    try {
      const doc = await this.#windows.findOneAndUpdate(
        // `$not: {$gte}` also matches a minute field that does not exist yet (a new minute), where `$lt` would not.
        { _id: id, day: { $lt: day.limit }, [minuteField]: { $not: { $gte: minute.limit } } },
        { $inc: { day: 1, [minuteField]: 1 }, $setOnInsert: { expiresAt: day.resetsAt } },
        { upsert: true, returnDocument: "after" },
      );
      if (!doc) throw new Error(`Rate window ${id} was not returned by an upsert`);
      return { admitted: true, minuteCount: doc.minutes?.[minute.key] ?? 0, dayCount: doc.day, strikes: 0 };
    } catch (error) {
      if (isDuplicateKeyError(error)) return undefined;
      throw error;
    }
  }

  async #strike(id: string, minute: WindowSpec, day: WindowSpec): Promise<Consumption | undefined> {
    const minuteFull: Filter<RateWindowDocument> = {
      day: { $lt: day.limit },
      ...(minute.limit > 0 && { [`minutes.${minute.key}`]: { $gte: minute.limit } }),
    };
    const byMinute = await this.#windows.findOneAndUpdate(
      { _id: id, ...minuteFull },
      { $inc: { [`minuteStrikes.${minute.key}`]: 1 } },
      { returnDocument: "after" },
    );
    if (byMinute) return this.#refused(byMinute, minute, byMinute.minuteStrikes?.[minute.key]);
    const byDay = await this.#windows.findOneAndUpdate(
      { _id: id, day: { $gte: day.limit } },
      { $inc: { dayStrikes: 1 } },
      { returnDocument: "after" },
    );
    return byDay ? this.#refused(byDay, minute, byDay.dayStrikes) : undefined;
  }

  #refused(doc: RateWindowDocument, minute: WindowSpec, strikes: number | undefined): Consumption {
    return { admitted: false, minuteCount: doc.minutes?.[minute.key] ?? 0, dayCount: doc.day, strikes: strikes ?? 0 };
  }

  async #ensureDocument(id: string, day: WindowSpec): Promise<void> {
    await this.#windows.updateOne({ _id: id }, { $setOnInsert: { day: 0, expiresAt: day.resetsAt } }, { upsert: true });
  }

  /** Started by the first request of each minute and not awaited: a failed sweep is retried a minute later. */
  #sweepOncePerMinute(minute: WindowSpec): void {
    const minuteEnds = minute.resetsAt.getTime();
    if (minuteEnds <= this.#sweptUpTo) return;
    this.#sweptUpTo = minuteEnds;
    this.sweepExpired(new Date(minuteEnds - EXPIRED_WINDOW_GRACE_MS)).catch(() => undefined);
  }
}
