/**
 * Recovery's and the relay's work lists on MongoDB: partial indexes over the documents with work pending, so a write
 * to any other document adds no entry to them (adapters/mongo/work-indexes.ts), and queries that name them, so the
 * lists cost what is pending, not what the collections hold.
 */
import type { Document, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import type { Stores } from "../../core/stores.ts";
import { describeMongo, freshMongoDatabase, clientWatchingFinds, type FreshMongoDatabase } from "../support/mongo.ts";

const PETS = 3_000;
const liveOrder = (id: number, state: string) => ({
  _id: id,
  petId: id,
  quantity: 1,
  state,
  placedBy: 1,
  revision: 2,
  createdAt: new Date(0),
  outbox: [],
});
const event = (id: string) => ({ id, type: "pet.updated", occurredAt: new Date(0), data: {} });

describeMongo("work indexes on MongoDB", () => {
  let mongo: FreshMongoDatabase;
  let watched: MongoClient;
  let stores: Stores;
  const finds: Document[] = [];

  beforeAll(async () => {
    mongo = await freshMongoDatabase("work_indexes");
    // The full indexes an earlier version created: start-up replaces them.
    await mongo.db.collection("pets").createIndex({ markCount: 1, _id: 1 });
    await mongo.db.collection("pets").createIndex({ "outbox.id": 1 });
    await mongo.db.collection("orders").createIndex({ settling: 1 });
    await prepareMongoDatabase(mongo.db);
    // A few of many pets with work pending: every 500th marked, moving, provisional or holding an event.
    await mongo.db.collection("pets").insertMany(
      Array.from({ length: PETS }, (_, i) => ({
        _id: i + 1,
        name: `Pet ${i}`,
        nameKey: `pet ${i}`,
        nameOrder: `pet ${i}`,
        categoryId: 1,
        status: "available",
        revision: 1,
        stock: 5,
        holdCount: 0,
        heldUnits: 0,
        marks: {},
        markCount: i % 500 === 1 ? 1 : 0,
        fences: {},
        ...(i % 500 === 2 && { movingTo: 7, provisionalSince: new Date(0) }),
        ...(i % 500 === 3 && { lifecycle: "deleting", provisionalSince: new Date(0) }),
        outbox: i % 500 === 4 ? [event(`e${i}`)] : [],
        ...(i % 500 === 4 && { hasEvents: true, eventsSince: "0" }),
      })) as never,
    );
    await mongo.db.collection("orders").insertMany(
      Array.from({ length: PETS }, (_, i) => ({
        ...liveOrder(i + 1, "complete"),
        ...(i % 500 === 5 && { settling: new Date(0) }),
      })) as never,
    );
    watched = await clientWatchingFinds(finds);
    stores = mongoStoresFor(watched.db(mongo.db.databaseName), async () => {});
  });
  afterAll(async () => {
    await watched?.close();
    await mongo?.close();
  });

  it("pets and orders keep full indexes for listings only; the work indexes are partial; the full ones they replaced are gone", async () => {
    const of = async (name: string) =>
      Object.fromEntries((await mongo.db.collection(name).indexes()).map((i) => [i.name, i.partialFilterExpression]));
    expect(await of("pets")).toEqual({
      _id_: undefined,
      status_1__id_1: undefined,
      categoryId_1__id_1: undefined,
      nameKey_1__id_1: undefined,
      nameOrder_1__id_1: undefined,
      moving: { movingTo: { $exists: true } },
      provisional: { lifecycle: { $exists: true } },
      marked: { markCount: { $gt: 0 } },
      pending_events: { hasEvents: true },
      pending_event_ids: { hasEvents: true },
    });
    expect(await of("orders")).toEqual({
      _id_: undefined,
      petId_1__id_1: undefined,
      placedBy_1__id_1: undefined,
      state_1__id_1: undefined,
      settling: { settling: { $exists: true } },
      pending_events: { hasEvents: true },
      pending_event_ids: { hasEvents: true },
    });
  });

  const walksOnly = async (collection: string, index: string, run: () => Promise<unknown>) => {
    finds.length = 0;
    await run();
    const mine = finds.filter((f) => f.find === collection);
    expect(mine.length).toBeGreaterThan(0);
    for (const command of mine) {
      expect(command.hint).toBe(index);
      const plan = await mongo.db.command({ explain: command, verbosity: "queryPlanner" });
      // FerretDB shows PostgreSQL's plan ("Index Name"), MongoDB its own ("indexName").
      expect(JSON.stringify(plan)).toMatch(new RegExp(`"(Index Name|indexName)":"${index}"`));
    }
  };

  describe("each work list walks its index, the first page and the next", () => {
    it("marked pets", async () => {
      await walksOnly("pets", "marked", async () => {
        expect((await stores.pets.withMarks({ limit: 2 })).map((p) => p.id)).toEqual([2, 502]);
        expect((await stores.pets.withMarks({ limit: 2, after: 502 })).map((p) => p.id)).toEqual([1002, 1502]);
      });
    });

    it("pets moving, provisional ones, and a category's movers", async () => {
      await walksOnly("pets", "moving", () => stores.pets.anyNaming(7));
      finds.length = 0;
      const found = await stores.pets.provisional({ limit: 3, after: 500 });
      expect(found.map((p) => p.id)).toEqual([503, 504, 1003]);
      expect(finds.map((f) => f.hint).sort()).toEqual(["moving", "provisional"]);
    });

    it("orders settling", async () => {
      await walksOnly("orders", "settling", async () => {
        const page = await stores.orders.settlingBefore(new Date(1), { limit: 2, after: 6 });
        expect(page.map((o) => o.id)).toEqual([506, 1006]);
      });
    });

    it("every order along _id, past the gone tombstones in the page's range; one state through {state, _id}", async () => {
      await mongo.db
        .collection<{ _id: number; state: string }>("orders")
        .insertMany(Array.from({ length: 2_000 }, (_, i) => ({ _id: 10_000 + i, state: "gone" })));
      await mongo.db.collection<{ _id: number }>("orders").insertOne(liveOrder(20_000, "open") as never);
      await walksOnly("orders", "_id_", async () => {
        const page = await stores.orders.list({ limit: 3, after: PETS - 1 });
        expect(page.map((o) => [o.id, o.state])).toEqual([
          [PETS, "complete"],
          [20_000, "open"],
        ]);
      });
      await walksOnly("orders", "state_1__id_1", async () => {
        const page = await stores.orders.list({ limit: 3, complete: false });
        expect(page.map((o) => [o.id, o.state])).toEqual([[20_000, "open"]]);
      });
    });

    it("events pending, and where an event is held", async () => {
      await walksOnly("pets", "pending_events", async () => {
        expect((await stores.outbox.pending(100)).map((e) => e.id)).toContain("e4");
      });
      // An instance that has not read it looks it up.
      const other = mongoStoresFor(watched.db(mongo.db.databaseName), async () => {});
      await walksOnly("pets", "pending_event_ids", () => other.outbox.acknowledge(["e2004"]));
      expect(await mongo.db.collection<{ _id: number }>("pets").findOne({ _id: 2005 })).toMatchObject({ outbox: [] });
    });
  });
});
