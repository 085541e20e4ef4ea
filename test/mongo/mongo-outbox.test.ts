/**
 * The MongoDB outbox as the server sees it: how many documents a poll reads, the `eventsSince` field every write with
 * events lowers and every acknowledgement settles, and the writes that get in between an acknowledgement's read and
 * its write (another request, another instance).
 */
import { MongoClient, type CommandStartedEvent, type CommandSucceededEvent, type Db, type Document } from "mongodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrateOutboxKeys } from "../../adapters/mongo/migrate-outbox-keys.ts";
import { MongoOutbox } from "../../adapters/mongo/mongo-outbox.ts";
import { mongoStoresFor } from "../../adapters/mongo/mongo-stores.ts";
import { outboxKey } from "../../adapters/mongo/outbox-key.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Stores } from "../../core/stores.ts";
import { anOrder, aPet, recordEvents, removePet } from "../contracts/mothers.ts";
import {
  describeMongo,
  emptyMongoDatabase,
  freshMongoDatabase,
  mongoUrl,
  TEST_MONGO_CLIENT_OPTIONS,
  type FreshMongoDatabase,
} from "../support/mongo.ts";

const time = (n: number): Date => new Date(Date.parse("2026-11-21T12:00:00.000Z") + n * 1000);
const petEvent = (id: string, at: number): DomainEvent => ({
  type: "inventory.changed",
  data: { petId: 1, delta: -1 },
  id,
  occurredAt: time(at),
});
const orderEvent = (id: string, at: number): DomainEvent => ({
  type: "order.cancelled",
  data: { id: 1, petId: 1, quantity: 2, complete: false },
  id,
  occurredAt: time(at),
});
const byOutboxOrder = (a: DomainEvent, b: DomainEvent): number =>
  a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : 1);

interface RawDocument {
  _id: number;
  outbox: DomainEvent[];
  hasEvents?: true;
  eventsSince?: string;
  state?: string;
}

/**
 * The database as the outbox sees it, with `beforeWrite` run ahead of each update or delete the outbox sends: the
 * moment between its read and its write, where another request or instance can get in.
 */
const interleaved = (db: Db, beforeWrite: (collection: string) => Promise<void>): Db =>
  new Proxy(db, {
    get(target, property) {
      if (property !== "collection") return Reflect.get(target, property, target) as unknown;
      return (name: string) =>
        new Proxy(target.collection(name), {
          get(collection, method) {
            const value = Reflect.get(collection, method, collection) as unknown;
            if (typeof value !== "function") return value;
            if (!["updateOne", "updateMany", "deleteOne", "deleteMany", "bulkWrite"].includes(String(method)))
              return value.bind(collection) as unknown;
            return async (...args: unknown[]) => {
              await beforeWrite(name);
              return (value as (...a: unknown[]) => unknown).apply(collection, args);
            };
          },
        });
    },
  });

describeMongo("MongoDB outbox", () => {
  let mongo: FreshMongoDatabase;
  let monitored: MongoClient;
  let db: Db;
  let stores: Stores;
  /** Documents each find and getMore returned, by collection. */
  let read: Record<string, number> = {};

  beforeAll(async () => {
    mongo = await freshMongoDatabase("mongo-outbox");
    monitored = new MongoClient(mongoUrl(), { ...TEST_MONGO_CLIENT_OPTIONS, monitorCommands: true });
    await monitored.connect();
    monitored.on("commandSucceeded", (event: CommandSucceededEvent) => {
      const cursor = (event.reply as { cursor?: { ns: string; firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor;
      if (!cursor || !cursor.ns.startsWith(`${mongo.db.databaseName}.`)) return;
      const collection = cursor.ns.slice(mongo.db.databaseName.length + 1);
      read[collection] = (read[collection] ?? 0) + (cursor.firstBatch ?? cursor.nextBatch ?? []).length;
    });
    db = monitored.db(mongo.db.databaseName);
  });

  afterAll(async () => {
    await monitored?.close();
    await mongo?.close();
  });

  beforeEach(async () => {
    await emptyMongoDatabase(mongo.db);
    stores = mongoStoresFor(db, async () => {});
    read = {};
  });

  const raw = (collection: "pets" | "orders") => mongo.db.collection<RawDocument>(collection);
  const push = (petId: number, ...events: DomainEvent[]) => recordEvents(stores.pets, petId, events);
  const ids = (events: readonly DomainEvent[]) => events.map((e) => e.id);
  const fieldOf = async (collection: "pets" | "orders", id: number) =>
    (await raw(collection).findOne({ _id: id }))?.eventsSince;

  describe("writes with events", () => {
    it("set `eventsSince` to the oldest event's key in the same write: an insert, a push (older lowers it, newer leaves it)", async () => {
      await stores.orders.insert(anOrder({ id: 1 }), [orderEvent("evt_b", 5), orderEvent("evt_a", 7)]);
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_p5", 5), petEvent("evt_p4", 4));
      expect(await fieldOf("orders", 1)).toBe(outboxKey(orderEvent("evt_b", 5)));
      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_p4", 4)));

      await push(1, petEvent("evt_p9", 9));
      await stores.orders.cancel({ orderId: 1, at: new Date(0), nonce: "a-nonce", events: [orderEvent("evt_c", 2)] });
      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_p4", 4)));
      expect(await fieldOf("orders", 1)).toBe(outboxKey(orderEvent("evt_c", 2)));
      expect(await raw("orders").findOne({ _id: 1 })).toMatchObject({ hasEvents: true });
    });

    it("break ties in time by id: the field is the whole order key", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_b", 3), petEvent("evt_a", 3));
      expect(await fieldOf("pets", 1)).toBe("2026-11-21T12:00:03.000Z evt_a");
    });
  });

  describe("a poll", () => {
    it("of a backlog reads about `limit` documents of each collection, and returns exactly the oldest events, batch after batch", async () => {
      const written: DomainEvent[] = [];
      // Times run against the ids (and repeat, ties broken by event id), pets and orders interleaved, one pet in
      // ten with a second, much later event.
      for (let n = 1; n <= 120; n++) {
        await stores.pets.insert(aPet({ id: n }));
        const order = orderEvent(`evt_o${1000 - n}`, (n * 37) % 90);
        await stores.orders.insert(anOrder({ id: n, petId: n }), [order]);
        const events = [
          petEvent(`evt_p${1000 - n}`, (n * 53) % 90),
          ...(n % 10 === 0 ? [petEvent(`evt_q${n}`, 200 + n)] : []),
        ];
        await push(n, ...events);
        written.push(order, ...events);
      }
      const expected = ids(written.sort(byOutboxOrder));

      read = {};
      expect(ids(await stores.outbox.pending(10))).toEqual(expected.slice(0, 10));
      expect(read).toEqual({ pets: 10, orders: 10 });

      const relayed: string[] = [];
      const perPoll: number[] = [];
      for (;;) {
        read = {};
        const batch = await stores.outbox.pending(10);
        perPoll.push(Math.max(read.pets ?? 0, read.orders ?? 0));
        if (batch.length === 0) break;
        relayed.push(...ids(batch));
        await stores.outbox.acknowledge(ids(batch));
      }
      expect(relayed).toEqual(expected);
      expect(Math.max(...perPoll)).toBe(10);
      expect(
        await raw("pets").countDocuments({
          $or: [{ hasEvents: { $exists: true } }, { eventsSince: { $exists: true } }],
        }),
      ).toBe(0);
    });

    it("is not misled by a document whose field is earlier than its events (a lost race, a crash): it reads on, and settles it", async () => {
      for (let n = 1; n <= 6; n++) {
        await stores.pets.insert(aPet({ id: n }));
        await push(n, petEvent(`evt_${n}`, n === 1 ? 50 : n));
      }
      await raw("pets").updateOne({ _id: 1 }, { $set: { eventsSince: outboxKey(petEvent("evt_0", 0)) } });

      expect(ids(await stores.outbox.pending(2))).toEqual(["evt_2", "evt_3"]);
      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_1", 50)));
      read = {};
      expect(ids(await stores.outbox.pending(2))).toEqual(["evt_2", "evt_3"]);
      expect(read.pets).toBe(2);
    });

    it("settles documents flagged with an empty outbox: the flag goes, a cancelled order leaves its gone tombstone", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await stores.orders.insert(anOrder({ id: 1 }));
      await stores.orders.insert(anOrder({ id: 2 }), [orderEvent("evt_2", 2)]);
      await raw("pets").updateOne(
        { _id: 1 },
        { $set: { hasEvents: true, eventsSince: outboxKey(petEvent("evt_0", 0)) } },
      );
      await raw("orders").updateOne({ _id: 1 }, { $set: { state: "cancelled", hasEvents: true } });

      expect(ids(await stores.outbox.pending(1))).toEqual(["evt_2"]);
      expect(await raw("pets").findOne({ _id: 1 })).not.toHaveProperty("hasEvents");
      expect(await raw("pets").findOne({ _id: 1 })).not.toHaveProperty("eventsSince");
      expect(await raw("orders").findOne({ _id: 1 })).toEqual({ _id: 1, state: "gone" });
    });
  });

  describe("documents written before `eventsSince`", () => {
    const legacy = async (collection: "pets" | "orders", id: number, events: DomainEvent[], state?: string) => {
      if (collection === "pets") await stores.pets.insert(aPet({ id }));
      else await stores.orders.insert(anOrder({ id }));
      await raw(collection).updateOne(
        { _id: id },
        { $set: { outbox: events, hasEvents: true, ...(state && { state }) } },
      );
    };

    it("are found, oldest first among the others, and settled by the poll that reads them", async () => {
      for (let n = 1; n <= 5; n++) await legacy("pets", n, [petEvent(`evt_late${n}`, 40 + n)]);
      for (let n = 6; n <= 10; n++) {
        await stores.pets.insert(aPet({ id: n }));
        await push(n, petEvent(`evt_early${n}`, n));
      }
      await legacy("orders", 1, [orderEvent("evt_first", 0)]);
      await legacy("pets", 11, [petEvent("evt_second", 1)]);

      expect(ids(await stores.outbox.pending(3))).toEqual(["evt_first", "evt_second", "evt_early6"]);
      for (let n = 1; n <= 5; n++) expect(await fieldOf("pets", n)).toBe(outboxKey(petEvent(`evt_late${n}`, 40 + n)));
      expect(await fieldOf("orders", 1)).toBe(outboxKey(orderEvent("evt_first", 0)));
      read = {};
      await stores.outbox.pending(3);
      expect(read).toEqual({ pets: 3, orders: 1 });
    });

    it("get the field when one of their events is acknowledged", async () => {
      await legacy("pets", 1, [petEvent("evt_1", 1), petEvent("evt_2", 2)]);
      await stores.outbox.acknowledge(["evt_1"]);
      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_2", 2)));
    });

    it("get the field at start-up (migrateOutboxKeys), and drained cancelled orders and orphans go; twice changes nothing", async () => {
      await legacy("pets", 1, [petEvent("evt_1", 1), petEvent("evt_0", 0)]);
      await legacy("orders", 1, [orderEvent("evt_3", 3)]);
      await legacy("orders", 2, [], "cancelled");
      await raw("orders").updateOne({ _id: 2 }, { $unset: { hasEvents: "" } });
      await stores.orders.insert(anOrder({ id: 3 }));
      await raw("orders").insertOne({ _id: "pets/9" as never, state: "orphaned", outbox: [] } as never);

      await migrateOutboxKeys(mongo.db);
      await migrateOutboxKeys(mongo.db);

      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_0", 0)));
      expect(await fieldOf("orders", 1)).toBe(outboxKey(orderEvent("evt_3", 3)));
      expect(await raw("orders").findOne({ _id: 2 })).toEqual({ _id: 2, state: "gone" });
      expect(await raw("orders").findOne({ _id: "pets/9" as never })).toBeNull();
      expect(await raw("orders").findOne({ _id: 3 })).toMatchObject({ state: "open", outbox: [] });
      expect(ids(await stores.outbox.pending(10))).toEqual(["evt_0", "evt_1", "evt_3"]);
    });
  });

  describe("a deleted pet's and its orders' gone tombstones", () => {
    /** Pet 1 with a pending event, its orders 1 (a pending event) and 2 (none); pet 2 with none. */
    const givenDeletedPets = async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_p", 2));
      await stores.orders.insert(anOrder({ id: 1, petId: 1, state: "complete" }), [orderEvent("evt_o", 1)]);
      await stores.orders.insert(anOrder({ id: 2, petId: 1, state: "complete" }));
      await stores.pets.insert(aPet({ id: 2 }));
      await stores.orders.removeAllOfPet(1);
      expect(await removePet(stores.pets, 1)).toBe(true);
      expect(await removePet(stores.pets, 2)).toBe(true);
    };
    const drain = async () => {
      const events = await stores.outbox.pending(10);
      await stores.outbox.acknowledge(ids(events));
      return ids(events);
    };
    /** A tombstone holding `event`, pending, as the deletion leaves it. */
    const holding = (tombstone: object, event: DomainEvent) => ({
      ...tombstone,
      outbox: [event],
      hasEvents: true,
      eventsSince: outboxKey(event),
    });
    const everything = async () => ({
      pets: await raw("pets").find().sort({ _id: 1 }).toArray(),
      orders: await raw("orders").find().sort({ _id: 1 }).toArray(),
    });

    it("keep their pending events, for the relay; drained, each is the bare tombstone", async () => {
      await givenDeletedPets();

      expect(await raw("pets").findOne({ _id: 1 })).toEqual(
        holding({ _id: 1, lifecycle: "gone" }, petEvent("evt_p", 2)),
      );
      expect(await raw("orders").findOne({ _id: 1 })).toEqual(
        holding({ _id: 1, state: "gone" }, orderEvent("evt_o", 1)),
      );
      expect(await raw("orders").findOne({ _id: 2 })).toEqual({ _id: 2, state: "gone" });
      expect(await raw("pets").findOne({ _id: 2 })).toEqual({ _id: 2, lifecycle: "gone" });
      expect(await stores.pets.ofId(1)).toBeUndefined();
      expect(await stores.orders.ofId(1)).toBeUndefined();

      expect(await drain()).toEqual(["evt_o", "evt_p"]);

      expect(await everything()).toEqual({
        pets: [
          { _id: 1, lifecycle: "gone" },
          { _id: 2, lifecycle: "gone" },
        ],
        orders: [
          { _id: 1, state: "gone" },
          { _id: 2, state: "gone" },
        ],
      });
      expect(await drain()).toEqual([]);
    });

    it("drained in part, keep the rest with its exact key", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_a", 1), petEvent("evt_b", 2));
      expect(await removePet(stores.pets, 1)).toBe(true);

      await stores.outbox.acknowledge(["evt_a"]);

      expect(await raw("pets").findOne({ _id: 1 })).toEqual(
        holding({ _id: 1, lifecycle: "gone" }, petEvent("evt_b", 2)),
      );
      expect(await drain()).toEqual(["evt_b"]);
      expect(await raw("pets").findOne({ _id: 1 })).toEqual({ _id: 1, lifecycle: "gone" });
    });

    it("a copy of each write landing after the relay drained them is refused: nothing pending again, nothing changed", async () => {
      const sent: Document[] = [];
      const listen = (event: CommandStartedEvent) => {
        if (event.databaseName === mongo.db.databaseName && event.commandName === "update") sent.push(event.command);
      };
      monitored.on("commandStarted", listen);
      try {
        await givenDeletedPets();
        expect(await drain()).toEqual(["evt_o", "evt_p"]);
      } finally {
        monitored.off("commandStarted", listen);
      }
      // The orders' updateMany, the two pets' updates, then the acknowledgement's update of each collection.
      const collections = sent.map((command) => String(command.update));
      expect([...collections.slice(0, 3), ...collections.slice(3).sort()]).toEqual([
        "orders",
        "pets",
        "pets",
        "orders",
        "pets",
      ]);
      const before = await everything();

      for (const command of sent) {
        const { lsid: _lsid, $clusterTime: _time, $db: _db, txnNumber: _txn, ...copy } = command;
        expect(await mongo.db.command(copy), JSON.stringify(copy)).toMatchObject({ n: 0, nModified: 0 });
      }

      expect(await everything()).toEqual(before);
      expect(await stores.outbox.pending(10)).toEqual([]);
    });
  });

  /** The events a deleted pet (id 9) left, as an earlier version's deletion wrote them (an orphan, ORPHANED). */
  const givenOrphan = (...events: DomainEvent[]) =>
    raw("orders").insertOne({ _id: "pets/9" as never, state: "orphaned", outbox: events, hasEvents: true } as never);

  describe("an acknowledgement, and a write between its read and its write", () => {
    /** Pets 2–4 with events at 2–4 s: what a field set too late on pet 1 would let a poll of one take first. */
    const others = async () => {
      for (let n = 2; n <= 4; n++) {
        await stores.pets.insert(aPet({ id: n }));
        await push(n, petEvent(`evt_other${n}`, n));
      }
    };
    /** Runs `competing` once, before the outbox's first write to `collection`. */
    const onceBefore = (collection: string, competing: () => Promise<unknown>) => {
      let done = false;
      return async (name: string) => {
        if (done || name !== collection) return;
        done = true;
        await competing();
      };
    };

    it("keeps an older event pushed meanwhile visible: the field is not raised past it", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_1", 1), petEvent("evt_9", 9));
      await others();
      const outbox = new MongoOutbox(
        interleaved(
          db,
          onceBefore("pets", () => push(1, petEvent("evt_0", 0))),
        ),
      );

      await outbox.acknowledge(["evt_1"]);

      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_0", 0)));
      expect(ids(await stores.outbox.pending(1))).toEqual(["evt_0"]);
      expect(ids(await stores.outbox.pending(10))).toEqual([
        "evt_0",
        "evt_other2",
        "evt_other3",
        "evt_other4",
        "evt_9",
      ]);
    });

    it("keeps an event pushed meanwhile on a document it drains: flag and field stay", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_1", 1));
      await others();
      const outbox = new MongoOutbox(
        interleaved(
          db,
          onceBefore("pets", () => push(1, petEvent("evt_5", 5))),
        ),
      );

      await outbox.acknowledge(["evt_1"]);

      expect(await raw("pets").findOne({ _id: 1 })).toMatchObject({
        hasEvents: true,
        eventsSince: outboxKey(petEvent("evt_5", 5)),
      });
      expect(ids(await stores.outbox.pending(10))).toEqual(["evt_other2", "evt_other3", "evt_other4", "evt_5"]);
    });

    it("settles exactly when another instance acknowledges other events of the same document in between", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_1", 1), petEvent("evt_2", 2), petEvent("evt_3", 3));
      await stores.orders.insert(anOrder({ id: 1, state: "cancelled" }), [
        orderEvent("evt_a", 1),
        orderEvent("evt_b", 2),
      ]);
      const sibling = new MongoOutbox(mongo.db);
      const onceForPets = onceBefore("pets", () => sibling.acknowledge(["evt_2"]));
      const onceForOrders = onceBefore("orders", () => sibling.acknowledge(["evt_b"]));
      const outbox = new MongoOutbox(
        interleaved(db, async (name) => {
          await onceForPets(name);
          await onceForOrders(name);
        }),
      );

      await outbox.acknowledge(["evt_1", "evt_a"]);

      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_3", 3)));
      expect(ids(await stores.outbox.pending(10))).toEqual(["evt_3"]);
      expect(await raw("orders").findOne({ _id: 1 })).toEqual({ _id: 1, state: "gone" });
    });

    it("takes its events out in one write whatever was pushed before it, and the field is exact after it", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_10", 10), petEvent("evt_20", 20));
      await others();
      let pushed = 0;
      const outbox = new MongoOutbox(
        interleaved(db, async (name) => {
          if (name === "pets") await push(1, petEvent(`evt_new${++pushed}`, 30 + pushed));
        }),
      );

      await outbox.acknowledge(["evt_10"]);

      expect(pushed).toBe(1);
      const after = await raw("pets").findOne({ _id: 1 });
      expect(ids(after!.outbox)).toEqual(["evt_20", "evt_new1"]);
      expect(after).toMatchObject({ hasEvents: true, eventsSince: outboxKey(petEvent("evt_20", 20)) });
      expect(ids(await stores.outbox.pending(10))).toEqual([
        "evt_other2",
        "evt_other3",
        "evt_other4",
        "evt_20",
        "evt_new1",
      ]);
    });

    it("a poll settling a document writes nothing when a write got in since its read, and reads on to the event pushed", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await push(1, petEvent("evt_50", 50));
      await others();
      await raw("pets").updateOne({ _id: 1 }, { $set: { eventsSince: outboxKey(petEvent("evt_0", 0)) } });
      const outbox = new MongoOutbox(
        interleaved(
          db,
          onceBefore("pets", () => push(1, petEvent("evt_1", 1))),
        ),
      );

      expect(ids(await outbox.pending(1))).toEqual(["evt_1"]);

      expect(await fieldOf("pets", 1)).toBe(outboxKey(petEvent("evt_1", 1)));
      expect(ids(await stores.outbox.pending(2))).toEqual(["evt_1", "evt_other2"]);
    });

    it("that dies before its write leaves everything pending, found, and is finished by acknowledging again", async () => {
      for (let n = 1; n <= 3; n++) {
        await stores.pets.insert(aPet({ id: n }));
        await push(n, petEvent(`evt_${n}a`, n), petEvent(`evt_${n}b`, 10 + n));
      }
      const dying = new MongoOutbox(
        interleaved(db, async () => {
          throw new Error("the process died here");
        }),
      );

      await expect(dying.acknowledge(["evt_1a", "evt_2a", "evt_3a"])).rejects.toThrow("the process died here");

      expect(ids(await stores.outbox.pending(3))).toEqual(["evt_1a", "evt_2a", "evt_3a"]);
      await stores.outbox.acknowledge(["evt_1a", "evt_2a", "evt_3a"]);
      expect(ids(await stores.outbox.pending(10))).toEqual(["evt_1b", "evt_2b", "evt_3b"]);
      for (let n = 1; n <= 3; n++) expect(await fieldOf("pets", n)).toBe(outboxKey(petEvent(`evt_${n}b`, 10 + n)));
    });

    it("that dies between its update and its delete (the two commands of one bulkWrite) leaves an orphan whole and pending", async () => {
      await givenOrphan(orderEvent("evt_a", 1));
      await stores.orders.insert(anOrder({ id: 2, state: "complete" }), [orderEvent("evt_b", 2)]);
      // The driver sends an unordered bulk's updates, then its deletes: the process dies in between.
      const updatesOnly = new Proxy(db, {
        get(target, property) {
          if (property !== "collection") return Reflect.get(target, property, target) as unknown;
          return (name: string) => {
            const collection = target.collection(name);
            return new Proxy(collection, {
              get(c, method) {
                if (method !== "bulkWrite") return (Reflect.get(c, method, c) as (...a: unknown[]) => unknown).bind(c);
                return async (writes: Record<string, unknown>[]) => {
                  await c.bulkWrite(writes.filter((w) => "updateOne" in w) as never, { ordered: false });
                  throw new Error("the process died here");
                };
              },
            });
          };
        },
      });
      const dying = new MongoOutbox(updatesOnly);
      await dying.pending(10);

      await expect(dying.acknowledge(["evt_a", "evt_b"])).rejects.toThrow("the process died here");

      expect(await raw("orders").findOne({ _id: "pets/9" as never })).toMatchObject({ outbox: [{ id: "evt_a" }] });
      expect(ids(await stores.outbox.pending(10))).toEqual(["evt_a"]);
      await stores.outbox.acknowledge(["evt_a"]);
      expect(await stores.outbox.pending(10)).toEqual([]);
      expect(await raw("orders").findOne({ _id: "pets/9" as never })).toBeNull();
    });

    it("leaves a cancelled order's gone tombstone in the write that takes its last event, settled before or after the read", async () => {
      const settling = new Date("2026-11-21T12:00:00.000Z");
      await stores.orders.insert(anOrder({ id: 1, state: "cancelled", settling }), [orderEvent("evt_a", 1)]);
      await stores.orders.insert(anOrder({ id: 2, state: "cancelled", settling }), [orderEvent("evt_b", 2)]);
      await stores.orders.settled(1);
      // Order 2 is read settling, and settled between the read and the acknowledgement (its settler saw events).
      const outbox = new MongoOutbox(db);
      expect(ids(await outbox.pending(10))).toEqual(["evt_a", "evt_b"]);
      await stores.orders.settled(2);
      expect(await raw("orders").findOne({ _id: 2 })).toMatchObject({ state: "cancelled", outbox: [{ id: "evt_b" }] });

      await outbox.acknowledge(["evt_a", "evt_b"]);

      expect(await raw("orders").findOne({ _id: 1 })).toEqual({ _id: 1, state: "gone" });
      expect(await raw("orders").findOne({ _id: 2 })).toEqual({ _id: 2, state: "gone" });
    });

    it("leaves a cancelled order still settling drained, for its settlement to remove", async () => {
      const settling = new Date("2026-11-21T12:00:00.000Z");
      await stores.orders.insert(anOrder({ id: 1, state: "cancelled", settling }), [orderEvent("evt_a", 1)]);

      await stores.outbox.acknowledge(["evt_a"]);
      expect(await raw("orders").findOne({ _id: 1 })).toMatchObject({ state: "cancelled", outbox: [] });
      await stores.orders.settled(1);

      expect(await raw("orders").findOne({ _id: 1 })).toEqual({ _id: 1, state: "gone" });
    });

    it("a settlement that dies part way leaves a drained cancelled order settling, for recovery, never kept for good", async () => {
      const settling = new Date("2026-11-21T12:00:00.000Z");
      await stores.orders.insert(anOrder({ id: 1, state: "cancelled", settling }), [orderEvent("evt_a", 1)]);
      await stores.outbox.acknowledge(["evt_a"]);
      const dying = mongoStoresFor(
        interleaved(db, async () => {
          throw new Error("the process died here");
        }),
        async () => {},
      );
      await expect(dying.orders.settled(1)).rejects.toThrow("the process died here");

      // What recovery does: it settles again the orders still settling (it finds them by `settling`, nothing else).
      for (const order of await stores.orders.settlingBefore(new Date("2100-01-01T00:00:00Z"), { limit: 10 }))
        await stores.orders.settled(order.id);
      expect(await raw("orders").findOne({ _id: 1 })).toEqual({ _id: 1, state: "gone" });
    });

    it("a cancelled order that got events since the read keeps them, pending, and is no gone tombstone yet", async () => {
      await stores.orders.insert(anOrder({ id: 1, state: "cancelled" }), [orderEvent("evt_a", 1)]);
      const outbox = new MongoOutbox(
        interleaved(
          db,
          onceBefore("orders", () =>
            raw("orders").updateOne(
              { _id: 1 },
              { $push: { outbox: orderEvent("evt_c", 3) }, $set: { hasEvents: true } },
            ),
          ),
        ),
      );
      await outbox.pending(10);

      await outbox.acknowledge(["evt_a"]);

      expect(await raw("orders").findOne({ _id: 1 })).toMatchObject({ state: "cancelled", outbox: [{ id: "evt_c" }] });
      expect(ids(await stores.outbox.pending(10))).toEqual(["evt_c"]);
    });

    it("an orphan that got events since the read is not deleted: it stays whole, its events pending again", async () => {
      await givenOrphan(orderEvent("evt_a", 1));
      const outbox = new MongoOutbox(
        interleaved(
          db,
          onceBefore("orders", () =>
            raw("orders").updateOne(
              { _id: "pets/9" as never },
              { $push: { outbox: orderEvent("evt_c", 3) }, $set: { hasEvents: true } },
            ),
          ),
        ),
      );
      await outbox.pending(10);

      await outbox.acknowledge(["evt_a"]);

      expect(ids((await raw("orders").findOne({ _id: "pets/9" as never }))!.outbox)).toEqual(["evt_a", "evt_c"]);
    });
  });

  describe("riders on an acknowledgement", () => {
    it("send their writes in the same bulkWrite: one update command per collection, each write on its own condition", async () => {
      await stores.pets.insert(aPet({ id: 1 }));
      await stores.pets.insert(aPet({ id: 2 }));
      await push(1, petEvent("evt_1", 1));
      await stores.orders.insert(anOrder({ id: 7, state: "open" }), [orderEvent("evt_o", 2)]);
      const commands: string[] = [];
      const listen = (event: CommandStartedEvent) => {
        if (event.databaseName === mongo.db.databaseName && ["update", "delete"].includes(event.commandName))
          commands.push(`${event.commandName} ${String(event.command[event.commandName])}`);
      };
      monitored.on("commandStarted", listen);
      // A rider marking the pet of each acknowledged order event, and one whose condition misses.
      const outbox = new MongoOutbox(db, {
        riders: [
          (acknowledged) => ({
            pets: [
              ...acknowledged
                .filter(
                  ({ event, collection, holder }) =>
                    event.type === "order.cancelled" && collection === "orders" && holder._id === 7,
                )
                .map(({ event }) => ({
                  updateOne: { filter: { _id: 2 }, update: { $set: { rode: event.id } } },
                })),
              { updateOne: { filter: { _id: 3 }, update: { $set: { rode: "never" } } } },
            ],
          }),
        ],
      });
      await outbox.pending(10);
      try {
        await outbox.acknowledge(["evt_1", "evt_o"]);
      } finally {
        monitored.off("commandStarted", listen);
      }

      expect(commands.sort()).toEqual(["update orders", "update pets"]);
      expect(await raw("pets").findOne({ _id: 2 })).toMatchObject({ rode: "evt_o" });
      expect(await stores.outbox.pending(10)).toEqual([]);
    });
  });
});
