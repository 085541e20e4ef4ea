import { MongoBulkWriteError, type Collection, type Db } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import {
  EVENT_LOG_RETENTION_MS,
  EVENT_LOG_SETTLE_MS,
  type EventLog,
  type EventLogBounds,
  type EventLogPage,
  type LoggedEvent,
} from "../../core/events/event-log.port.ts";
import { DEADLOCK_RETRY, isDeadlockVictim, isDuplicateKeyError } from "./duplicate-key.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import { guarded } from "./store-unavailable.ts";
import { deleteAtAfter } from "./ttl-index.ts";

/**
 * One document per position: an event, or a marker of a position whose event was already in the log (`hole`), so
 * readers pass it at once instead of waiting out the settle time.
 */
interface LogDocument {
  _id: number;
  /** The event's id; `hole:<position>` on a marker (unique too, so the unique index takes both). */
  eventId: string;
  type?: DomainEvent["type"];
  occurredAt?: Date;
  data?: unknown;
  hole?: true;
  /** Wall clock when the position was allocated: what readers compare with the settle time. */
  appendedAt: Date;
  /** The server's TTL monitor deletes the document after this. */
  deleteAt: Date;
}

const COUNTER = "event-log";

export const createEventLogIndexes = async (db: Db): Promise<void> => {
  const log = db.collection("event_log");
  await log.createIndex({ eventId: 1 }, { unique: true });
  await log.createIndex({ deleteAt: 1 }, { expireAfterSeconds: 0 });
  await createCounter(db.collection<{ _id: string; value: number }>("counters"));
};

/** Created once, by an insert: a duplicate means it exists (another instance, an earlier start). */
const createCounter = async (counters: Collection<{ _id: string; value: number }>): Promise<void> => {
  try {
    await counters.insertOne({ _id: COUNTER, value: 0 });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
};

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * An append takes a block of positions from a counter (one `findOneAndUpdate`), then inserts the events in one
 * unordered `insertMany`; the unique index on `eventId` refuses an event already logged, and its position gets a
 * marker (one more `insertMany`, only then). Two round trips per batch of events, three when some were logged.
 */
export class MongoEventLog implements EventLog {
  readonly #log: Collection<LogDocument>;
  readonly #counters: Collection<{ _id: string; value: number }>;
  constructor(db: Db) {
    this.#log = db.collection<LogDocument>("event_log");
    this.#counters = db.collection<{ _id: string; value: number }>("counters");
  }

  append(events: readonly DomainEvent[]): Promise<void> {
    return guarded(async () => {
      if (events.length === 0) return;
      // No upsert: racing upserts of an absent counter can each count from zero on some engines (see createCounters).
      const take = () =>
        this.#counters.findOneAndUpdate(
          { _id: COUNTER },
          { $inc: { value: events.length } },
          { returnDocument: "after" },
        );
      let counter = await take();
      if (!counter) {
        await createCounter(this.#counters);
        counter = await take();
      }
      const first = counter!.value - events.length + 1;
      const appendedAt = new Date();
      const deleteAt = deleteAtAfter(EVENT_LOG_RETENTION_MS);
      let todo: LogDocument[] = events.map((e, i) => ({
        _id: first + i,
        eventId: e.id,
        type: e.type,
        occurredAt: e.occurredAt,
        data: e.data,
        appendedAt,
        deleteAt,
      }));
      for (let attempt = 1; ; attempt++) {
        const { logged, victims } = await this.#insert(todo);
        if (logged.length > 0) await this.#mark(logged);
        if (victims.length === 0) return;
        // Positions never written are holes readers skip after the settle time.
        if (attempt >= DEADLOCK_RETRY.attempts)
          throw new DomainError("service_unavailable", "The store could not settle a conflicting write; retry", 1);
        await pause(Math.random() * DEADLOCK_RETRY.baseDelayMs * 2 ** attempt);
        todo = victims;
      }
    });
  }

  readAfter(position: number, limit: number): Promise<EventLogPage> {
    return guarded(async () => {
      if (limit < 1) return { events: [], last: position };
      const docs = await this.#log
        .find({ _id: { $gt: position } }, { sort: { _id: 1 }, limit, projection: { deleteAt: 0 } })
        .toArray();
      const settled = Date.now() - EVENT_LOG_SETTLE_MS;
      const events: LoggedEvent[] = [];
      let last = position;
      for (const doc of docs) {
        // A gap: positions allocated before this one and not written yet, or never to be.
        if (doc._id !== last + 1 && doc.appendedAt.getTime() > settled) break;
        last = doc._id;
        if (!doc.hole)
          events.push({
            id: doc.eventId,
            type: doc.type!,
            occurredAt: doc.occurredAt!,
            data: doc.data,
            position: doc._id,
          } as LoggedEvent);
      }
      return { events, last };
    });
  }

  /**
   * The log is the database's: it outlives every process, so no position comes from another log (origin 0). A
   * database made anew starts again at 1; a reader ahead of it is told so.
   */
  bounds(): Promise<EventLogBounds> {
    return guarded(async () => {
      const [counter, oldest] = await Promise.all([
        this.#counters.findOne({ _id: COUNTER }),
        this.#log.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } }),
      ]);
      const end = counter?.value ?? 0;
      return { origin: 0, oldest: oldest?._id ?? end + 1, end };
    });
  }

  /** Inserts what it can; answers the documents refused as already logged and the deadlock's victims (nothing written). */
  async #insert(docs: LogDocument[]): Promise<{ logged: LogDocument[]; victims: LogDocument[] }> {
    try {
      await this.#log.insertMany(docs, { ordered: false });
      return { logged: [], victims: [] };
    } catch (error) {
      if (isDeadlockVictim(error)) return { logged: [], victims: docs };
      if (!(error instanceof MongoBulkWriteError)) {
        if (isDuplicateKeyError(error) && docs.length === 1) return { logged: docs, victims: [] };
        throw error;
      }
      const logged: LogDocument[] = [];
      const victims: LogDocument[] = [];
      for (const writeError of [error.writeErrors].flat()) {
        const doc = docs[writeError.index]!;
        if (writeError.code === 11000) logged.push(doc);
        else if (/deadlock detected/i.test(writeError.errmsg ?? "")) victims.push(doc);
        else throw error;
      }
      return { logged, victims };
    }
  }

  /** Markers at the positions of events already logged; one already there is left as it is. */
  async #mark(docs: LogDocument[]): Promise<void> {
    const markers = docs.map((d): LogDocument => ({
      _id: d._id,
      eventId: `hole:${d._id}`,
      hole: true,
      appendedAt: d.appendedAt,
      deleteAt: d.deleteAt,
    }));
    try {
      await this.#log.insertMany(markers, { ordered: false });
    } catch (error) {
      const duplicatesOnly =
        error instanceof MongoBulkWriteError && [error.writeErrors].flat().every((e) => e.code === 11000);
      if (!duplicatesOnly && !isDuplicateKeyError(error)) throw error;
    }
  }
}
