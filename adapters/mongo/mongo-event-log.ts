import { MongoBulkWriteError, type Collection, type Db } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import {
  EVENT_LOG_RETENTION_MS,
  type EventLog,
  type EventLogBounds,
  type EventLogPage,
  type LoggedEvent,
} from "../../core/events/event-log.port.ts";
import {
  DEADLOCK_RETRY,
  duplicatesOnly,
  insertAnswers,
  isDeadlockVictim,
  isDuplicateKeyError,
} from "./duplicate-key.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import { guarded } from "./store-unavailable.ts";
import { retireIndex } from "./work-indexes.ts";

/**
 * One document per position (`_id`): an event, or a hole. A hole says that no event will ever be at its position:
 * the unique `_id` lets one document only ever hold a position, so once a hole is there a late insert of an event
 * at that position is refused. Readers pass a position only when a document is there, or when it is at or below the
 * counter's `floor` (docs/consistency.md#event-log).
 */
interface LogDocument {
  _id: number;
  /** The event's id; `hole:<position>` on a hole (unique too, so the unique index takes both). */
  eventId: string;
  type?: DomainEvent["type"];
  occurredAt?: Date;
  data?: unknown;
  hole?: true;
  /** The appender's wall clock: how long a gap before this document has lasted. Decides when, never whether. */
  appendedAt: Date;
  /** The end of retention: the trim deletes the document after this (it moves the floor past it first). */
  deleteAt: Date;
}

/** `value`: the last position handed out. `floor`: every position up to it was filled; missing ones were trimmed. */
interface CounterDocument {
  _id: string;
  value: number;
  floor?: number;
}

const COUNTER = "event-log";

/**
 * How long a gap lasts, counted from the append of the event after it, before a reader abandons it with holes. The
 * appends whose positions it holds are then refused there and append again higher: a late insert costs its appender
 * a retry, never a reader an event. Above the driver's default time-out (2 s), so a live append nearly always lands first.
 */
export const EVENT_LOG_HOLE_WAIT_MS = 5_000;
/** Positions one read abandons at most. */
const FILL_MAX = 1_000;
/** How often an instance trims the log's old end, and how much a trim walks at most. */
const TRIM_EVERY_MS = 60_000;
const TRIM_PAGE = 1_000;
const TRIM_PAGES = 20;

export const createEventLogIndexes = async (db: Db): Promise<void> => {
  const log = db.collection<LogDocument>("event_log");
  const counters = db.collection<CounterDocument>("counters");
  await log.createIndex({ eventId: 1 }, { unique: true });
  // Retention is the trim's: a TTL monitor deleting above the floor would leave gaps readers cannot tell from appends.
  await retireIndex(log, "deleteAt_1");
  await createCounter(counters);
  // A log written by an earlier version has no floor: the positions below its oldest document were deleted by the
  // TTL monitor. Set once (a late copy finds the floor there).
  const oldest = await log.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } });
  const counter = await counters.findOne({ _id: COUNTER });
  await counters.updateOne(
    { _id: COUNTER, floor: { $exists: false } },
    { $set: { floor: oldest ? oldest._id - 1 : (counter?.value ?? 0) } },
  );
};

/** Created once, by an insert: a duplicate means it exists (another instance, an earlier start). */
const createCounter = async (counters: Collection<CounterDocument>): Promise<void> => {
  try {
    await counters.insertOne({ _id: COUNTER, value: 0, floor: 0 });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
};

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const holeAt = (position: number, appendedAt: Date, deleteAt: Date): LogDocument => ({
  _id: position,
  eventId: `hole:${position}`,
  hole: true,
  appendedAt,
  deleteAt,
});

/** A run of missing positions a reader could not pass, and the document after it. */
interface Gap {
  from: number;
  to: number;
  next: LogDocument;
}

/** The events of `docs` a reader at `position` may take: up to the first gap not at or below `floor`. */
const walk = (position: number, docs: LogDocument[], floor: number): EventLogPage & { gap?: Gap } => {
  const events: LoggedEvent[] = [];
  let last = position;
  for (const doc of docs) {
    if (doc._id > last + 1 && last + 1 <= floor) last = Math.min(floor, doc._id - 1);
    if (doc._id > last + 1) return { events, last, gap: { from: last + 1, to: doc._id - 1, next: doc } };
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
};

/**
 * An append takes a block of positions from a counter (one `findOneAndUpdate`, shared by the whole batch), then
 * inserts the events in one unordered `insertMany`. Two round trips per batch. A refused insert is looked up by
 * event id (one `find`, only then): an event already logged leaves a hole at its new position; an event whose
 * position a reader abandoned is appended again at new positions.
 */
export class MongoEventLog implements EventLog {
  readonly #log: Collection<LogDocument>;
  readonly #counters: Collection<CounterDocument>;
  /** The floor as last read: it only rises, so a read of the log started after this one may pass up to it. */
  #floor = 0;
  /** The wall clock: when a gap counts as old and when to trim (never what a reader may pass). */
  readonly #now: () => number;
  #trimAt: number;
  constructor(db: Db, options: { now?: () => number } = {}) {
    this.#log = db.collection<LogDocument>("event_log");
    this.#counters = db.collection<CounterDocument>("counters");
    this.#now = options.now ?? Date.now;
    this.#trimAt = this.#now() + TRIM_EVERY_MS;
  }

  append(events: readonly DomainEvent[]): Promise<void> {
    return guarded(async () => {
      let todo: readonly DomainEvent[] = events;
      for (let attempt = 1; todo.length > 0; attempt++) {
        if (attempt > DEADLOCK_RETRY.attempts)
          throw new DomainError("service_unavailable", "The store could not settle a conflicting write; retry", 1);
        todo = await this.#place(await this.#positioned(todo));
      }
      // The events are logged: a failed trim must not fail the append (its relay would log them again); the next
      // one, a minute on, does its work.
      if (events.length > 0 && this.#now() >= this.#trimAt) await this.trim().catch(() => undefined);
    });
  }

  readAfter(position: number, limit: number): Promise<EventLogPage> {
    return guarded(async () => {
      if (limit < 1) return { events: [], last: position };
      let floor = this.#floor;
      for (let round = 1; ; round++) {
        const docs = await this.#log.find({ _id: { $gt: position } }, { sort: { _id: 1 }, limit }).toArray();
        const { gap, ...page } = walk(position, docs, floor);
        if (!gap || page.last > position || round > 3) return page;
        // Held at a gap: the floor may have risen past it (a trim); else, once the gap is old, it is abandoned.
        const risen = await this.#readFloor();
        if (risen >= gap.from) {
          floor = risen;
          continue;
        }
        if (gap.next.appendedAt.getTime() > this.#now() - EVENT_LOG_HOLE_WAIT_MS) return page;
        await this.#abandon(gap.from, Math.min(gap.to, gap.from + FILL_MAX - 1), gap.next);
      }
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
      if (counter?.floor !== undefined) this.#floor = Math.max(this.#floor, counter.floor);
      return { origin: 0, oldest: oldest?._id ?? end + 1, end };
    });
  }

  /**
   * Retention: walks the documents above the floor whose time is up, from the oldest, while they follow each other
   * without a gap (a gap there is abandoned first); moves the floor past them, then deletes them. Called by appends,
   * once a minute per instance; idempotent, so instances may trim at once.
   */
  trim(): Promise<void> {
    return guarded(async () => {
      const now = this.#now();
      this.#trimAt = now + TRIM_EVERY_MS;
      let floor = await this.#readFloor();
      // What a trim that died between its two writes left.
      await this.#log.deleteMany({ _id: { $lte: floor } });
      for (let page = 0; page < TRIM_PAGES; page++) {
        const docs = await this.#log
          .find(
            { _id: { $gt: floor } },
            { sort: { _id: 1 }, limit: TRIM_PAGE, projection: { _id: 1, appendedAt: 1, deleteAt: 1 } },
          )
          .toArray();
        let through = floor;
        let gap: Gap | undefined;
        for (const doc of docs) {
          if (doc.deleteAt.getTime() > now) break;
          if (doc._id > through + 1) {
            gap = { from: through + 1, to: doc._id - 1, next: doc };
            break;
          }
          through = doc._id;
        }
        if (through > floor) {
          await this.#counters.updateOne({ _id: COUNTER }, { $max: { floor: through } });
          await this.#log.deleteMany({ _id: { $lte: through } });
          floor = this.#floor = Math.max(this.#floor, through);
        }
        // A gap whose next document is a day old: abandoned, then walked again.
        if (gap) await this.#abandon(gap.from, Math.min(gap.to, gap.from + FILL_MAX - 1), gap.next);
        else if (docs.length < TRIM_PAGE || through < (docs.at(-1)?._id ?? 0)) return;
      }
    });
  }

  async #readFloor(): Promise<number> {
    const counter = await this.#counters.findOne({ _id: COUNTER }, { projection: { floor: 1 } });
    this.#floor = Math.max(this.#floor, counter?.floor ?? 0);
    return this.#floor;
  }

  /** The events at new positions, one block from the counter. */
  async #positioned(events: readonly DomainEvent[]): Promise<LogDocument[]> {
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
    const appendedAt = new Date(this.#now());
    const deleteAt = new Date(appendedAt.getTime() + EVENT_LOG_RETENTION_MS);
    return events.map((e, i) => ({
      _id: first + i,
      eventId: e.id,
      type: e.type,
      occurredAt: e.occurredAt,
      data: e.data,
      appendedAt,
      deleteAt,
    }));
  }

  /**
   * Inserts the documents; answers the events still to append (at new positions). Deadlock victims (nothing written)
   * are inserted again at their positions first. A refusal by a unique index is looked up by event id: the event
   * there (this insert's own copy, a driver's retry) is done; logged elsewhere, its position gets a hole so readers
   * pass it at once; not logged, its position was abandoned by a reader: appended again.
   */
  async #place(docs: LogDocument[]): Promise<DomainEvent[]> {
    let todo = docs;
    const refused: LogDocument[] = [];
    for (let run = 1; todo.length > 0; run++) {
      const { duplicates, victims } = await this.#insert(todo);
      refused.push(...duplicates);
      if (victims.length === 0) break;
      if (run >= DEADLOCK_RETRY.attempts)
        throw new DomainError("service_unavailable", "The store could not settle a conflicting write; retry", 1);
      await pause(Math.random() * DEADLOCK_RETRY.baseDelayMs * 2 ** run);
      todo = victims;
    }
    if (refused.length === 0) return [];
    const found = await this.#log
      .find({ eventId: { $in: refused.map((d) => d.eventId) } }, { projection: { eventId: 1 } })
      .toArray();
    const at = new Map(found.map((d) => [d.eventId, d._id]));
    const loggedElsewhere = refused.filter((d) => at.has(d.eventId) && at.get(d.eventId) !== d._id);
    if (loggedElsewhere.length > 0)
      await this.#insertHoles(loggedElsewhere.map((d) => holeAt(d._id, d.appendedAt, d.deleteAt)));
    return refused
      .filter((d) => !at.has(d.eventId))
      .map((d) => ({ id: d.eventId, type: d.type, occurredAt: d.occurredAt, data: d.data }) as DomainEvent);
  }

  /** Inserts what it can; answers the documents a unique index refused and the deadlock's victims (nothing written). */
  async #insert(docs: LogDocument[]): Promise<{ duplicates: LogDocument[]; victims: LogDocument[] }> {
    try {
      await this.#log.insertMany(docs, { ordered: false });
      return { duplicates: [], victims: [] };
    } catch (error) {
      if (isDeadlockVictim(error)) return { duplicates: [], victims: docs };
      if (!(error instanceof MongoBulkWriteError)) {
        if (isDuplicateKeyError(error) && docs.length === 1) return { duplicates: docs, victims: [] };
        throw error;
      }
      // The command failed as a whole (a network error): what it inserted is unknown, so the append fails and its
      // relay appends the events again (those logged are found by their ids then).
      const answers = insertAnswers(error, docs.length);
      if (answers === undefined) throw error;
      const duplicates: LogDocument[] = [];
      const victims: LogDocument[] = [];
      for (const writeError of answers) {
        const doc = docs[writeError.index]!;
        if (writeError.code === 11000) duplicates.push(doc);
        else if (/deadlock detected/i.test(writeError.errmsg ?? "")) victims.push(doc);
        else throw error;
      }
      return { duplicates, victims };
    }
  }

  /** Holes at `from`..`to`, dated like the document after them (so the trim takes them with it). */
  #abandon(from: number, to: number, next: LogDocument): Promise<void> {
    const holes: LogDocument[] = [];
    for (let p = from; p <= to; p++) holes.push(holeAt(p, next.appendedAt, next.deleteAt));
    return this.#insertHoles(holes);
  }

  /** A position already taken (an event landed first, another reader abandoned it) keeps what it has. */
  async #insertHoles(holes: LogDocument[]): Promise<void> {
    try {
      await this.#log.insertMany(holes, { ordered: false });
    } catch (error) {
      if (!duplicatesOnly(error, holes.length)) throw error;
    }
  }
}
