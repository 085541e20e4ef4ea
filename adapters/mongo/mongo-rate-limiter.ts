import { type Collection, type Db, type Filter } from "mongodb";
import type { Consumption, RateLimiter } from "../../core/rate-limiting/rate-limiter.port.ts";
import type { WindowCounts, Windows, WindowSpec } from "../../core/rate-limiting/windows.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { ExpiringMarks } from "./expiring-marks.ts";
import { guarded } from "./store-unavailable.ts";
import { createTtlIndex, deleteAtAfter } from "./ttl-index.ts";

/**
 * One document per subject and day window. Window keys become field names, so they must not contain "." or
 * start with "$" (the core's are `m<minute number>` and `d<day number>`).
 *
 * Counters of earlier minutes stay in the document until the server deletes the day's document: at most 1,440
 * small fields a day, never read again (every reply is projected to the current minute's fields), and cheaper than
 * an extra write per request to remove them.
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
  /** When the server deletes the document (TTL index): some time after the day ended, measured on the wall clock. */
  deleteAt: Date;
}

/** A day's document is deleted this long after the day ended: instances whose clocks lag a little still find it. */
const EXPIRED_WINDOW_GRACE_MS = 10 * 60_000;
/** An attempt that neither counted nor struck met a document being created or deleted: the next one sees it. */
const ATTEMPTS = 3;
/** Windows remembered per instance, full ones and existing day documents each: a bound on the memo's memory. */
const WINDOWS_REMEMBERED = 10_000;

export const createRateWindowIndexes = async (db: Db): Promise<void> => {
  await createTtlIndex(db, "rate_windows", EXPIRED_WINDOW_GRACE_MS);
};

/**
 * Fixed windows counted by the server, one round trip per admitted request: a single conditional update that counts
 * the request in both windows only if neither is full (its reply projected to the two counters). A day's document is
 * created by an insert of the day's first request, so of two racing first requests exactly one creates it and the
 * other counts by update: no upsert, whose racing inserts some engines report twice. When the conditional update
 * matches nothing, one more update counts a strike against the refusing window (the day window when it is full, else
 * the minute window), itself conditional on that window being full.
 *
 * Each instance remembers which day documents exist (so it updates at once instead of trying the insert) and which
 * windows it has seen full: a full window is not asked to admit again until it ends, the request goes straight to
 * the strike, one round trip instead of two or three. That cannot refuse what the store would admit: a window's count
 * only grows until the window ends, so once it reached its limit the store refuses every further request in it; and
 * since the strike is conditional on the window being full in the store, a limit raised meanwhile (a plan change)
 * makes it miss, the marks are dropped and the request is offered to the store as usual. Counts and strikes stay
 * exact across instances; the marks are bounded (ExpiringMarks).
 */
export class MongoRateLimiter implements RateLimiter {
  readonly #windows: Collection<RateWindowDocument>;
  /** `<subject>|<window key>` of windows known full, until they end. */
  readonly #full: ExpiringMarks;
  /** `_id`s of day documents known to exist, until their day ends. */
  readonly #existing: ExpiringMarks;
  constructor(db: Db, options: { windowsRemembered?: number } = {}) {
    this.#windows = db.collection<RateWindowDocument>("rate_windows");
    this.#full = new ExpiringMarks(options.windowsRemembered ?? WINDOWS_REMEMBERED);
    this.#existing = new ExpiringMarks(options.windowsRemembered ?? WINDOWS_REMEMBERED);
  }

  /** How many full windows this instance remembers. */
  get rememberedFullWindows(): number {
    return this.#full.size;
  }

  usage(subject: string, { minute, day }: Windows): Promise<WindowCounts> {
    return guarded(async () => {
      const doc = await this.#windows.findOne(
        { _id: `${subject}|${day.key}` },
        { projection: { _id: 0, day: 1, [`minutes.${minute.key}`]: 1 } },
      );
      return { minute: doc?.minutes?.[minute.key] ?? 0, day: doc?.day ?? 0 };
    });
  }

  consume(subject: string, { minute, day }: Windows): Promise<Consumption> {
    return guarded(async () => {
      const id = `${subject}|${day.key}`;
      const now = new Date(minute.resetsAt.getTime() - 60_000);
      const remember = (window: WindowSpec) => this.#full.add(`${subject}|${window.key}`, window.resetsAt, now);
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const dayFull = this.#full.has(`${subject}|${day.key}`);
        const known = dayFull || this.#full.has(`${subject}|${minute.key}`);
        if (!known && minute.limit > 0 && day.limit > 0) {
          const admitted = await this.#admit(id, minute, day, now);
          if (admitted) {
            if (admitted.counts.day >= day.limit) remember(day);
            else if (admitted.counts.minute >= minute.limit) remember(minute);
            return admitted;
          }
        } else if (!known && !this.#existing.has(id)) {
          await this.#create(id, day, 0, minute, now); // a window of limit 0 admits nothing, but strikes need a document
        }
        const refused = await this.#strike(id, minute, day, dayFull);
        if (refused) {
          remember(refused.counts.day >= day.limit ? day : minute);
          return refused;
        }
        this.#full.delete(`${subject}|${day.key}`);
        this.#full.delete(`${subject}|${minute.key}`);
        this.#existing.delete(id);
      }
      throw new Error(`Rate window ${id} changed under ${ATTEMPTS} attempts to count a request`);
    });
  }

  async #admit(id: string, minute: WindowSpec, day: WindowSpec, now: Date): Promise<Consumption | undefined> {
    if (!this.#existing.has(id) && (await this.#create(id, day, 1, minute, now))) {
      return { admitted: true, counts: { minute: 1, day: 1 }, strikes: 0 };
    }
    const minuteField = `minutes.${minute.key}`;
    const doc = await this.#windows.findOneAndUpdate(
      // `$not: {$gte}` also matches a minute field that does not exist yet (a new minute), where `$lt` would not.
      { _id: id, day: { $lt: day.limit }, [minuteField]: { $not: { $gte: minute.limit } } },
      { $inc: { day: 1, [minuteField]: 1 } },
      { returnDocument: "after", projection: { _id: 0, day: 1, [minuteField]: 1 } },
    );
    return doc
      ? { admitted: true, counts: { minute: doc.minutes?.[minute.key] ?? 0, day: doc.day }, strikes: 0 }
      : undefined;
  }

  /** Inserts the day's document counting `count` requests; false when it exists already. */
  async #create(id: string, day: WindowSpec, count: 0 | 1, minute: WindowSpec, now: Date): Promise<boolean> {
    try {
      await this.#windows.insertOne({
        _id: id,
        day: count,
        ...(count > 0 && { minutes: { [minute.key]: count } }),
        expiresAt: day.resetsAt,
        deleteAt: deleteAtAfter(day.resetsAt.getTime() - now.getTime() + EXPIRED_WINDOW_GRACE_MS),
      });
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return false;
    } finally {
      this.#existing.add(id, day.resetsAt, now);
    }
  }

  async #strike(id: string, minute: WindowSpec, day: WindowSpec, dayFirst: boolean): Promise<Consumption | undefined> {
    const minuteField = `minutes.${minute.key}`;
    const minuteStrikesField = `minuteStrikes.${minute.key}`;
    const byMinute = async () => {
      const minuteFull: Filter<RateWindowDocument> = {
        day: { $lt: day.limit },
        ...(minute.limit > 0 && { [minuteField]: { $gte: minute.limit } }),
      };
      const doc = await this.#windows.findOneAndUpdate(
        { _id: id, ...minuteFull },
        { $inc: { [minuteStrikesField]: 1 } },
        { returnDocument: "after", projection: { _id: 0, day: 1, [minuteField]: 1, [minuteStrikesField]: 1 } },
      );
      return doc ? this.#refused(doc, minute, doc.minuteStrikes?.[minute.key]) : undefined;
    };
    const byDay = async () => {
      const doc = await this.#windows.findOneAndUpdate(
        { _id: id, day: { $gte: day.limit } },
        { $inc: { dayStrikes: 1 } },
        { returnDocument: "after", projection: { _id: 0, day: 1, [minuteField]: 1, dayStrikes: 1 } },
      );
      return doc ? this.#refused(doc, minute, doc.dayStrikes) : undefined;
    };
    return dayFirst ? ((await byDay()) ?? (await byMinute())) : ((await byMinute()) ?? (await byDay()));
  }

  #refused(
    doc: Omit<RateWindowDocument, "_id" | "expiresAt">,
    minute: WindowSpec,
    strikes: number | undefined,
  ): Consumption {
    return { admitted: false, counts: { minute: doc.minutes?.[minute.key] ?? 0, day: doc.day }, strikes: strikes ?? 0 };
  }
}
