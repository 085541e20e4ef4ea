/**
 * The MongoDB event log's gap rule (docs/consistency.md, "Event log"): a position allocated but not yet written
 * holds readers back until the first event after it is older than the settle time, then it is skipped as a hole.
 * Gaps are made by taking positions from the counter without writing them, as a relay that stalls or dies between
 * its two round trips leaves them.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Db } from "mongodb";
import { MongoEventLog } from "../../adapters/mongo/mongo-event-log.ts";
import { prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { EVENT_LOG_SETTLE_MS } from "../../core/events/event-log.port.ts";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "../support/mongo.ts";

const event = (n: number): DomainEvent => ({
  id: `evt_${String(n).padStart(6, "0")}`,
  type: "inventory.changed",
  occurredAt: new Date(Date.UTC(2026, 10, 21, 12, 0, n)),
  data: { petId: n, delta: -1 },
});

/** Takes `count` positions as an append does, and writes nothing at them. */
const allocateWithoutWriting = async (db: Db, count: number): Promise<void> => {
  await db
    .collection<{ _id: string; value: number }>("counters")
    .updateOne({ _id: "event-log" }, { $inc: { value: count } });
};

/** Moves the append time of every document of the log by `ms` (back when positive), as if appended that long ago. */
const age = async (db: Db, ms: number): Promise<void> => {
  await db.collection("event_log").updateMany({}, [{ $set: { appendedAt: { $subtract: ["$appendedAt", ms] } } }]);
};

describeMongo("MongoDB event log: gaps between positions", () => {
  let mongo: FreshMongoDatabase;
  let log: MongoEventLog;
  beforeEach(async () => {
    mongo = await freshMongoDatabase("event_log");
    await prepareMongoDatabase(mongo.db);
    log = new MongoEventLog(mongo.db);
  });
  afterEach(async () => {
    await mongo?.close();
  });

  it("stops before a gap while the event after it is recent, and resumes there once the gap is written", async () => {
    await log.append([event(1)]);
    await allocateWithoutWriting(mongo.db, 1);
    await log.append([event(3)]);
    // An hour ahead: recent however slowly this test runs.
    await age(mongo.db, -3_600_000);

    const held = await log.readAfter(0, 10);
    expect(held.events.map((e) => e.id)).toEqual([event(1).id]);
    expect(held.last).toBe(1);
    // The slow append lands: its event is read next, then the one after it.
    await mongo.db.collection("event_log").insertOne({
      _id: 2 as never,
      eventId: event(2).id,
      type: "inventory.changed",
      occurredAt: event(2).occurredAt,
      data: event(2).data,
      appendedAt: new Date(),
      deleteAt: new Date(Date.now() + 60_000),
    });
    const resumed = await log.readAfter(held.last, 10);
    expect(resumed.events.map((e) => [e.position, e.id])).toEqual([
      [2, event(2).id],
      [3, event(3).id],
    ]);
  });

  it("skips a gap as a hole once the event after it is older than the settle time", async () => {
    await log.append([event(1)]);
    await allocateWithoutWriting(mongo.db, 2);
    await log.append([event(4), event(5)]);
    await age(mongo.db, EVENT_LOG_SETTLE_MS + 1_000);

    const page = await log.readAfter(1, 10);
    expect(page.events.map((e) => [e.position, e.id])).toEqual([
      [4, event(4).id],
      [5, event(5).id],
    ]);
    expect(page.last).toBe(5);
  });

  it("skips the positions of events already logged at once (markers), with no settle time", async () => {
    await log.append([event(1), event(2)]);
    await log.append([event(1), event(2), event(3)]);

    const page = await log.readAfter(0, 10);
    expect(page.events.map((e) => e.id)).toEqual([1, 2, 3].map((n) => event(n).id));
    expect(page.last).toBe(5);
  });

  it("creates its counter when it is missing (a database not prepared by a start-up) and positions stay unique", async () => {
    await mongo.db.collection<{ _id: string }>("counters").deleteOne({ _id: "event-log" });

    await Promise.all([log.append([event(1), event(2)]), log.append([event(3)])]);

    const page = await log.readAfter(0, 10);
    expect(page.events.map((e) => e.id).sort()).toEqual([1, 2, 3].map((n) => event(n).id));
    expect(new Set(page.events.map((e) => e.position)).size).toBe(3);
  });
});
