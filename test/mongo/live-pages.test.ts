/**
 * Pages of every pet with thousands of `gone` tombstones before, between and after the live pets. By name, the
 * listing's find names the index whose ranges leave them out ({nameOrder, _id}), the engine plans a scan of those
 * ranges, and where the engine reports what a query examined (MongoDB), that stays within the page; FerretDB's explain
 * does not run the query: there the plan's index conditions show the ranges. By id, it walks `_id_` in order (named
 * too, so no plan reads the collection whole and sorts it), stepping over the tombstones in the page's range: the
 * test engine reads any other index's ranges whole and sorts them (docs/operations.md, "Listings and tombstones").
 */
import { BSON, type Document, type MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gonePet } from "../../adapters/mongo/gone.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import type { PetStatus } from "../../core/pets/pet.ts";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import type { PetQuery } from "../../core/pets/pets.port.ts";
import type { Stores } from "../../core/stores.ts";
import { describeMongo, freshMongoDatabase, clientWatchingFinds, type FreshMongoDatabase } from "../support/mongo.ts";
import { aPet } from "../contracts/mothers.ts";

const GONE = 2_000;
/** Live pets: a few of each status after the first GONE ids, then GONE more tombstones, then the last live pet. */
const LIVE: ReadonlyArray<[id: number, status: PetStatus, name: string]> = [
  [GONE + 1, "sold", "Dora"],
  [GONE + 2, "available", "Bella"],
  [GONE + 3, "pending", "Cleo"],
  [GONE + 4, "available", "Alfie"],
  [3 * GONE + 5, "sold", "Ace"],
];
const LIMIT = 2;

const pet = ([id, status, name]: (typeof LIVE)[number]): PetRecord =>
  aPet({ id, name, status, ...(status === "pending" && { pendingCause: "hold" as const }) });

/** The BSON documents of the conditions on `index` in a PostgreSQL plan as FerretDB shows it. */
const indexConditions = (plan: string, index: string): Document[] =>
  [...plan.matchAll(/\{[^{}]*"Index Name":"([^"]+)"[^{}]*\}/g)]
    .filter((scan) => scan[1] === index)
    .flatMap((scan) => [...(/"Index Cond":"([^"]*)"/.exec(scan[0])?.[1] ?? "").matchAll(/BSONHEX([0-9a-f]+)/g)])
    .map((hex) => BSON.deserialize(Buffer.from(hex[1]!, "hex")));

describeMongo("pages of every pet on MongoDB with gone tombstones", () => {
  let mongo: FreshMongoDatabase;
  let watched: MongoClient;
  let stores: Stores;
  const finds: Document[] = [];

  beforeAll(async () => {
    mongo = await freshMongoDatabase("live_pages");
    await prepareMongoDatabase(mongo.db);
    const pets = mongo.db.collection<{ _id: number }>("pets");
    stores = mongoStoresFor(mongo.db, async () => {});
    const tombstones = [...Array(GONE).keys()].flatMap((i) => [i + 1, 2 * GONE + 5 + i]);
    for (let at = 0; at < tombstones.length; at += 500)
      await Promise.all(
        tombstones.slice(at, at + 500).map((id) => stores.pets.insert(pet([id, "available", `Gone ${id}`]))),
      );
    // What a deletion leaves (gone.ts), written as it writes it.
    await pets.updateMany({ _id: { $in: tombstones } }, gonePet);
    for (const live of LIVE) await stores.pets.insert(pet(live));
    // A provisional pet among them: in the ranges, never listed.
    await stores.pets.insert({ ...pet([GONE + 6, "available", "Aaron"]), lifecycle: "creating" });
    watched = await clientWatchingFinds(finds, "pets");
    stores = mongoStoresFor(watched.db(mongo.db.databaseName), async () => {});
  });
  afterAll(async () => {
    await watched?.close();
    await mongo?.close();
  });

  /**
   * The ids listed, and each find's index: named and planned; for an index other than `_id_`, bounded to ranges that
   * leave the tombstones out, and within the page where the engine counts.
   */
  const listed = async (query: PetQuery, index: string): Promise<number[]> => {
    finds.length = 0;
    const ids = (await stores.pets.list(query)).map((p) => p.id);
    expect(finds).toHaveLength(1);
    const [command] = finds as [Document];
    expect(command.hint).toBe(index);
    const planned = await mongo.db.command({ explain: command, verbosity: "executionStats" });
    const plan = JSON.stringify(planned);
    // FerretDB shows PostgreSQL's plan ("Index Name", and "Index Cond" for a bounded scan), MongoDB its own.
    expect(plan).toMatch(new RegExp(`"(Index Name|indexName)":"${index}"`));
    const stats = planned.executionStats as { totalKeysExamined: number; totalDocsExamined: number } | undefined;
    if (index === "_id_") return ids;
    if (stats === undefined) {
      // FerretDB does not run an explained query: its index conditions (BSON) show the ranges the scan walks. A
      // tombstone has neither status nor name key: a range of strings leaves it out, a full scan would not.
      const conditions = indexConditions(plan, index);
      expect(conditions.length).toBeGreaterThan(0);
      for (const condition of conditions) expect(JSON.stringify(condition)).not.toMatch(/fullScan|null/);
    } else {
      // One key past the page per status range, and the provisional pet.
      expect(stats.totalKeysExamined).toBeLessThanOrEqual(LIMIT + 4);
      expect(stats.totalDocsExamined).toBeLessThanOrEqual(LIMIT + 4);
    }
    return ids;
  };

  it("by id, page after page, with every tombstone before, between and after the live pets: `_id_` in order", async () => {
    expect(await listed({ limit: LIMIT }, "_id_")).toEqual([GONE + 1, GONE + 2]);
    expect(await listed({ limit: LIMIT, after: GONE + 2 }, "_id_")).toEqual([GONE + 3, GONE + 4]);
    expect(await listed({ limit: LIMIT, after: GONE + 4 }, "_id_")).toEqual([3 * GONE + 5]);
    expect(await listed({ limit: LIMIT, after: 3 * GONE + 5 }, "_id_")).toEqual([]);
  });

  it("by descending id, from the end past the last tombstones, and below the first live pet", async () => {
    expect(await listed({ limit: LIMIT, sort: "-id" }, "_id_")).toEqual([3 * GONE + 5, GONE + 4]);
    expect(await listed({ limit: LIMIT, sort: "-id", after: GONE + 4 }, "_id_")).toEqual([GONE + 3, GONE + 2]);
    expect(await listed({ limit: LIMIT, sort: "-id", after: GONE + 1 }, "_id_")).toEqual([]);
  });

  it("by name, the first page and the next", async () => {
    expect(await listed({ limit: LIMIT, sort: "name" }, "nameOrder_1__id_1")).toEqual([3 * GONE + 5, GONE + 4]);
    const next = { limit: LIMIT, sort: "name", after: GONE + 4, afterName: "alfie" } as const;
    expect(await listed(next, "nameOrder_1__id_1")).toEqual([GONE + 2, GONE + 3]);
  });

  describe("filtered listings keep their own plans", () => {
    it("ids are looked up by `_id`, and a status or category goes by its own index's range", async () => {
      finds.length = 0;
      const keyed = await stores.pets.list({ limit: 10, ids: [1, GONE + 2, GONE + 6] });
      expect(keyed.map((p) => p.id)).toEqual([GONE + 2]);
      const sold = await stores.pets.list({ limit: 10, statuses: ["sold"] });
      expect(sold.map((p) => p.id)).toEqual([GONE + 1, 3 * GONE + 5]);
      expect(finds.map((f) => f.hint)).toEqual([undefined, undefined]);
      expect(finds[0]!.filter).not.toHaveProperty("status");
    });
  });
});
