/**
 * The MongoDB event log's gap rule (docs/consistency.md, "Event log"): a reader passes a position only when a
 * document is there (an event or a hole) or it is at or below the trimmed floor. A gap holds readers until its insert
 * lands or a reader abandons it with a hole; an insert that lands after that is refused there and appended again
 * higher, so it is read all the same, however late it comes. Time is never waited for: readers are given a clock an
 * hour ahead when they should find a gap old, and inserts are held by the test, not by a timer.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { MongoClient, type Db } from "mongodb";
import { FaultProxy, writeCommand } from "../chaos/fault-proxy.ts";
import { EVENT_LOG_HOLE_WAIT_MS, MongoEventLog } from "../../adapters/mongo/mongo-event-log.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { EVENT_LOG_RETENTION_MS, type EventLog, type LoggedEvent } from "../../core/events/event-log.port.ts";
import { readStoreView } from "../support/invariants.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";

const event = (n: number): DomainEvent => ({
  id: `evt_${String(n).padStart(6, "0")}`,
  type: "inventory.changed",
  occurredAt: new Date(Date.UTC(2026, 10, 21, 12, 0, n % 60)),
  data: { petId: n, delta: -1 },
});

/** Takes `count` positions as an append does, and writes nothing at them (a dead append, a late copy of a take). */
const allocateWithoutWriting = async (db: Db, count: number): Promise<void> => {
  await db
    .collection<{ _id: string; value: number }>("counters")
    .updateOne({ _id: "event-log" }, { $inc: { value: count } });
};

interface Held {
  docs: readonly { _id: number; eventId: string }[];
  /** Sends the insert; settles once the engine answered it (the append goes on by itself). */
  land: () => Promise<void>;
}

/**
 * A database whose event-log inserts of events wait until the test lets each go: `held()` answers the waiting ones,
 * oldest first, each with `land()`. Holes pass at once.
 */
const holdingInserts = (db: Db) => {
  const waiting: Held[] = [];
  const collection = (name: string) => {
    const real = db.collection<Held["docs"][number] & { hole?: true }>(name);
    if (name !== "event_log") return real;
    const held = Object.create(real) as typeof real;
    held.insertMany = ((docs: readonly (Held["docs"][number] & { hole?: true })[], options: object) => {
      if (docs.every((d) => d.hole)) return real.insertMany(docs, options);
      return new Promise((resolve, reject) =>
        waiting.push({
          docs,
          land: () => {
            const answer = real.insertMany(docs, options);
            answer.then(resolve, reject);
            return answer.then(
              () => undefined,
              () => undefined,
            );
          },
        }),
      );
    }) as typeof real.insertMany;
    return held;
  };
  return { db: { collection } as unknown as Db, held: () => waiting.splice(0) };
};

/** Every event after `after`, page by page, as a stream resumes. */
const readAll = async (log: EventLog, after = 0, pageSize = 10): Promise<{ events: LoggedEvent[]; last: number }> => {
  const events: LoggedEvent[] = [];
  let position = after;
  for (;;) {
    const page = await log.readAfter(position, pageSize);
    events.push(...page.events);
    if (page.last === position) return { events, last: position };
    position = page.last;
  }
};

const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Until the log holds `count` inserts waiting (an append takes its positions first). */
const untilHeld = async (hold: { held: () => Held[] }, count: number): Promise<Held[]> => {
  const taken: Held[] = [];
  while (taken.length < count) {
    taken.push(...hold.held());
    await settled();
  }
  return taken;
};

describeMongo("MongoDB event log: gaps, holes and late inserts", () => {
  let mongo: FreshMongoDatabase;
  let log: MongoEventLog;
  /** A reader for whom every gap is old: it abandons any gap it is held at. */
  let impatient: MongoEventLog;
  beforeEach(async () => {
    mongo = await freshMongoDatabase("event_log");
    await prepareMongoDatabase(mongo.db);
    log = new MongoEventLog(mongo.db);
    impatient = new MongoEventLog(mongo.db, { now: () => Date.now() + 3_600_000 });
  });
  afterEach(async () => {
    await mongo?.close();
  });

  /** Event 1 logged, event 2's append holding position 2 with its insert waiting, event 3 logged at 3. */
  const slowAppendBetween = async () => {
    const hold = holdingInserts(mongo.db);
    await log.append([event(1)]);
    const appending = new MongoEventLog(hold.db).append([event(2)]);
    const [insert] = await untilHeld(hold, 1);
    await log.append([event(3)]);
    return { hold, appending, insert: insert! };
  };

  it("holds a reader at a gap while it is recent, and the late insert is read at its position", async () => {
    const { appending, insert } = await slowAppendBetween();

    const held = await log.readAfter(0, 10);
    expect(held).toMatchObject({ events: [{ id: event(1).id, position: 1 }], last: 1 });
    expect(await log.readAfter(1, 10)).toEqual({ events: [], last: 1 });

    insert.land();
    await appending;
    const resumed = await log.readAfter(held.last, 10);
    expect(resumed.events.map((e) => [e.position, e.id])).toEqual([
      [2, event(2).id],
      [3, event(3).id],
    ]);
  });

  it("an insert that lands after a reader abandoned its position is refused there and appended again: read once, later", async () => {
    const { hold, appending, insert } = await slowAppendBetween();

    // The gap is old for this reader: it leaves a hole at 2 and reads on.
    const first = await readAll(impatient);
    expect(first.events.map((e) => [e.position, e.id])).toEqual([
      [1, event(1).id],
      [3, event(3).id],
    ]);
    const hole = await mongo.db.collection("event_log").findOne({ _id: 2 as never });
    expect(hole).toMatchObject({ hole: true });

    // Any time later: the insert lands, finds the hole, and the append places the event again above.
    insert.land();
    const [again] = await untilHeld(hold, 1);
    again!.land();
    await appending;
    const rest = await readAll(log, first.last);
    expect(rest.events.map((e) => [e.position, e.id])).toEqual([[4, event(2).id]]);
    expect((await readAll(log)).events.map((e) => e.id)).toEqual([1, 3, 2].map((n) => event(n).id));
  });

  it("a copy of an insert applied later, after the append was logged elsewhere, is refused by the event's id", async () => {
    await log.append([event(1)]);
    const copy = await mongo.db.collection("event_log").findOne({ _id: 1 as never });
    await allocateWithoutWriting(mongo.db, 1);
    await expect(
      mongo.db.collection("event_log").insertOne({ ...copy!, _id: 2 as never, appendedAt: new Date() }),
    ).rejects.toThrow();
    // A late copy of a reader's hole at a position an event holds is refused the same way.
    await expect(
      mongo.db.collection("event_log").insertOne({ _id: 1 as never, eventId: "hole:1", hole: true }),
    ).rejects.toThrow();
    await log.append([event(3)]);
    expect((await readAll(impatient)).events.map((e) => [e.position, e.id])).toEqual([
      [1, event(1).id],
      [3, event(3).id],
    ]);
  });

  it("readers abandoning every gap at once, appends landing in any order: each event read once, in position order", async () => {
    const hold = holdingInserts(mongo.db);
    const appenders = [0, 1, 2].map(() => new MongoEventLog(hold.db));
    const all = Array.from({ length: 30 }, (_, i) => event(i + 1));
    const appends = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((b) => appenders[b % 3]!.append(all.slice(b * 3, b * 3 + 3)));
    const seen: LoggedEvent[] = [];
    let position = 0;
    const readOn = async () => {
      const page = await readAll(impatient, position, 4);
      seen.push(...page.events);
      position = page.last;
    };
    // Every append holds its positions; the inserts land highest position first, a reader between each two (it
    // abandons the gaps below), then the appends placed again land lowest first.
    let done = false;
    const finished = Promise.all(appends).then(() => (done = true));
    let waiting = await untilHeld(hold, appends.length);
    for (let direction = -1; !done; direction = 1) {
      waiting.sort((a, b) => direction * (a.docs[0]!._id - b.docs[0]!._id));
      for (const insert of waiting) {
        await readOn();
        await insert.land();
      }
      await settled();
      waiting = hold.held();
      while (!done && waiting.length === 0) {
        await settled();
        waiting = hold.held();
      }
    }
    await finished;
    await readOn();

    expect(seen.map((e) => e.id).sort()).toEqual(all.map((e) => e.id).sort());
    const positions = seen.map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);
    // Some inserts did land after their positions were abandoned: those events were placed above the first 30.
    expect(Math.max(...positions)).toBeGreaterThan(all.length);
  });

  it("skips the positions of events already logged at once (holes), without waiting", async () => {
    await log.append([event(1), event(2)]);
    await log.append([event(1), event(2), event(3)]);

    const page = await log.readAfter(0, 10);
    expect(page.events.map((e) => e.id)).toEqual([1, 2, 3].map((n) => event(n).id));
    expect(page.last).toBe(5);
  });

  it("trims what is past retention: the floor moves first, then the documents go; readers pass the trimmed positions", async () => {
    await log.append([event(1), event(2)]);
    await allocateWithoutWriting(mongo.db, 1); // a dead append's position among them
    await log.append([event(4)]);
    const dayLater = new MongoEventLog(mongo.db, { now: () => Date.now() + EVENT_LOG_RETENTION_MS + 60_000 });
    await dayLater.append([event(5)]);
    await dayLater.trim();

    const counter = await mongo.db.collection<{ _id: string; floor: number }>("counters").findOne({ _id: "event-log" });
    expect(counter?.floor).toBe(4);
    expect(await mongo.db.collection("event_log").countDocuments()).toBe(1);
    // A reader that never read the floor passes the trimmed positions at once, and a fresh gap above it still holds.
    await allocateWithoutWriting(mongo.db, 1);
    await log.append([event(7)]);
    const fresh = new MongoEventLog(mongo.db);
    expect(await fresh.readAfter(0, 10)).toMatchObject({ events: [{ id: event(5).id, position: 5 }], last: 5 });
    expect(await fresh.bounds()).toEqual({ origin: 0, oldest: 5, end: 7 });
  });

  it("copies of an earlier trim's writes applied later move nothing back and delete nothing kept", async () => {
    await log.append([event(1), event(2)]);
    const dayLater = new MongoEventLog(mongo.db, { now: () => Date.now() + EVENT_LOG_RETENTION_MS + 60_000 });
    await dayLater.append([event(3)]);
    await dayLater.trim();
    await dayLater.append([event(4)]);

    // An earlier trim's two writes, held until now: its floor, then its delete.
    const counters = mongo.db.collection<{ _id: string; floor: number }>("counters");
    await counters.updateOne({ _id: "event-log" }, { $max: { floor: 1 } });
    await mongo.db.collection("event_log").deleteMany({ _id: { $lte: 1 as never } });

    expect((await counters.findOne({ _id: "event-log" }))?.floor).toBe(2);
    expect((await readAll(new MongoEventLog(mongo.db))).events.map((e) => e.id)).toEqual(
      [3, 4].map((n) => event(n).id),
    );
  });

  it("a log written by the earlier version gets its floor below its oldest document at start-up, once", async () => {
    await log.append([event(1), event(2), event(3)]);
    await mongo.db.collection("event_log").deleteOne({ _id: 1 as never }); // what its TTL monitor deleted
    await mongo.db.collection("counters").updateOne({ _id: "event-log" as never }, { $unset: { floor: "" } });

    await Promise.all([prepareMongoDatabase(mongo.db), prepareMongoDatabase(mongo.db)]);
    await log.append([event(4)]);
    await prepareMongoDatabase(mongo.db);

    const counter = await mongo.db.collection<{ _id: string; floor: number }>("counters").findOne({ _id: "event-log" });
    expect(counter?.floor).toBe(1);
    expect((await new MongoEventLog(mongo.db).readAfter(0, 10)).events.map((e) => e.position)).toEqual([2, 3, 4]);
  });

  it("abandons a gap only once the event after it was appended longer ago than the hole wait", async () => {
    await log.append([event(1)]);
    await allocateWithoutWriting(mongo.db, 1);
    await log.append([event(3)]);
    const justBefore = new MongoEventLog(mongo.db, { now: () => Date.now() + EVENT_LOG_HOLE_WAIT_MS - 60_000 });
    expect((await justBefore.readAfter(1, 10)).last).toBe(1);
    expect(await mongo.db.collection("event_log").countDocuments({ hole: true })).toBe(0);
    expect((await impatient.readAfter(1, 10)).last).toBe(3);
  });

  it("creates its counter when it is missing (a database not prepared by a start-up) and positions stay unique", async () => {
    await mongo.db.collection<{ _id: string }>("counters").deleteOne({ _id: "event-log" });

    await Promise.all([log.append([event(1), event(2)]), log.append([event(3)])]);

    const page = await log.readAfter(0, 10);
    expect(page.events.map((e) => e.id).sort()).toEqual([1, 2, 3].map((n) => event(n).id));
    expect(new Set(page.events.map((e) => e.position)).size).toBe(3);
  });

  /** The events the invariant check (test/support/invariants.ts) reads, through a reader that abandons any gap. */
  const checked = async () =>
    (
      await readStoreView(
        { ...mongoStoresFor(mongo.db, async () => {}), eventLog: impatient },
        { pets: [], orders: [] },
      )
    ).logged.map((e) => e.id);

  it("the invariant check reads past a page of holes only (a run of dead appends) to the events after it", async () => {
    // As after repeated connection cuts: appends that died after taking their positions leave a long gap, which a
    // reader abandons with holes; a page may then hold holes only and still not be the end.
    await log.append([event(1)]);
    await allocateWithoutWriting(mongo.db, 600);
    await log.append([event(2)]);
    expect(await checked()).toEqual([event(1).id, event(2).id]);
  });

  it("the invariant check reads on from a page of holes that ends at a gap", async () => {
    // Event 1 logged, its relay's answer lost; a dead append (2); the relay's retry, refused, leaves a hole (3);
    // another dead append (4-6); event 2. Once 2 is abandoned, the page after event 1 is holes up to the gap at 4:
    // no event on it, but the reader moved on, and event 2 is still to read.
    for (const [logged, dead] of [
      [1, 1],
      [1, 3],
      [2, 0],
    ]) {
      await log.append([event(logged!)]);
      await allocateWithoutWriting(mongo.db, dead!);
    }
    expect(await checked()).toEqual([event(1).id, event(2).id]);
  });

  it("an insert whose connection is cut, before or after it applied, fails the append: no event is taken as logged", async () => {
    // The driver throws a MongoBulkWriteError with no write error when the command itself fails (here a connection
    // cut through the fault proxy, no retry): which documents it inserted is unknown.
    const proxy = await FaultProxy.start({ target: new URL(mongoUrl()).host });
    const client = new MongoClient(proxy.url(), {
      retryWrites: false,
      retryReads: false,
      serverSelectionTimeoutMS: 5_000,
    });
    try {
      const cut = new MongoEventLog(client.db(mongo.db.databaseName));
      for (const [when, events] of [
        ["before", [event(1), event(2)]],
        ["after", [event(3), event(4)]],
      ] as const) {
        const fired = proxy.arm({ kind: "cut", when, how: "fin" }, writeCommand("event_log"));
        // A store outage (503 where a request waits on it), as the driver's own network error is.
        await expect(cut.append(events)).rejects.toMatchObject({ code: "service_unavailable" });
        await fired;
      }
    } finally {
      await client.close();
      await proxy.close();
    }

    // The relay appends them again: each is logged once (those the cut insert applied are found by their ids).
    await log.append([event(1), event(2), event(3), event(4)]);
    // Events 3 and 4 were applied by the insert cut after it: they keep their positions, before 1 and 2.
    expect((await readAll(impatient)).events.map((e) => e.id)).toEqual([3, 4, 1, 2].map((n) => event(n).id));
  });
});
