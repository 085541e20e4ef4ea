/**
 * What a page of pets costs when most pets ever created are gone (their `gone` tombstones, adapters/mongo/gone.ts):
 * creates PETS pets through the adapter, turns the first GONE of them into tombstones as a deletion does, then
 * explains each listing's command and times it. On MongoDB the figures are explain's executionStats; on FerretDB,
 * whose explain does not run the query, set PSQL_CONTAINER to the engine's container and the script runs the same
 * command under PostgreSQL's EXPLAIN ANALYZE through DocumentDB's `bson_aggregation_find`.
 *
 *   MONGODB_URL=mongodb://127.0.0.1:27018/ PSQL_CONTAINER=shared-mongo node bench/gone-pages.ts [PETS] [GONE]
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { BSON, MongoClient, type CommandStartedEvent, type Db, type Document } from "mongodb";
import { GONE as GONE_STATE, gonePet } from "../adapters/mongo/gone.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../adapters/mongo/mongo-stores.ts";
import type { PetRecord } from "../core/pets/pet-record.ts";
import { aPet } from "../test/contracts/mothers.ts";
import type { PetQuery } from "../core/pets/pets.port.ts";
import type { OrderQuery } from "../core/orders/orders.port.ts";

const PETS = Number(process.argv[2] ?? 2_000);
const GONE = Number(process.argv[3] ?? 1_900);
const RUNS = 200;
const out = (text: string) => process.stdout.write(`${text}\n`);

const pet = (id: number): PetRecord =>
  aPet({ id, name: `Pet ${id}`, stock: 1, status: id % 3 === 0 ? "sold" : "available" });

const PET_LISTINGS: Record<string, PetQuery> = {
  "every pet, first page": { limit: 21 },
  "every pet, sort=-id, the page below the first live pet": { limit: 21, sort: "-id", after: GONE + 1 },
  "every pet, sort=name, first page": { limit: 21, sort: "name" },
  "status=available, first page": { limit: 21, statuses: ["available"] },
  "categoryId=1, first page": { limit: 21, categoryId: 1 },
};
const ORDER_LISTINGS: Record<string, OrderQuery> = {
  "every order, first page": { limit: 21 },
  "complete orders, first page": { limit: 21, complete: true },
};

/** The live orders: all complete, as the orders of a shop mostly are; the first GONE ids are `gone` tombstones. */
const order = (id: number) =>
  id <= GONE
    ? { _id: id, state: GONE_STATE }
    : {
        _id: id,
        petId: id,
        quantity: 1,
        state: "complete",
        placedBy: 1,
        revision: 2,
        createdAt: new Date(0),
        outbox: [],
      };

/** Runs SQL in the engine's container (FerretDB's PostgreSQL, on its Unix socket), tuples only. */
const psql = (container: string, sql: string): string =>
  execFileSync(
    "docker",
    [
      "exec",
      "-i",
      "-u",
      "postgres",
      container,
      "psql",
      "-h",
      "/var/run/postgresql",
      "-U",
      "postgres",
      "-d",
      "postgres",
      "-At",
    ],
    { input: `${sql};`, encoding: "utf8" },
  );

/** The plan's nodes that read an index or the table, with what they returned and what their filters removed. */
const analyze = (container: string, db: Db, find: Document): string => {
  const { $db, lsid, $clusterTime, ...command } = find;
  const text = BSON.EJSON.stringify(command, { relaxed: false });
  const out = psql(
    container,
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT document FROM documentdb_api_catalog.bson_aggregation_find('${db.databaseName}', '${text.replaceAll("'", "''")}')`,
  );
  const json = JSON.parse(out.slice(out.indexOf("["), out.lastIndexOf("]") + 1)) as [{ Plan: Document }];
  const nodes: string[] = [];
  const walk = (node: Document) => {
    if (/Scan/.test(node["Node Type"]) && node["Node Type"] !== "Custom Scan")
      nodes.push(
        `${node["Node Type"]}${node["Index Name"] ? ` on ${node["Index Name"]}` : ""}: rows ${node["Actual Rows"]}` +
          (node["Rows Removed by Filter"] ? `, removed by filter ${node["Rows Removed by Filter"]}` : ""),
      );
    if (node["Node Type"] === "Sort") nodes.push(`sorted (${node["Sort Method"]})`);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(json[0].Plan);
  return `${nodes.join("; ")}; buffers hit ${json[0].Plan["Shared Hit Blocks"]}`;
};

const client = new MongoClient(process.env.MONGODB_URL ?? "mongodb://127.0.0.1:27018/", { monitorCommands: true });
const finds: Document[] = [];
client.on("commandStarted", (e: CommandStartedEvent) => {
  if (e.commandName === "find") finds.push(e.command);
});
await client.connect();
const db = client.db(`gone_pages_${randomBytes(4).toString("hex")}`);
try {
  await prepareMongoDatabase(db);
  const stores = mongoStoresFor(db, async () => {});
  for (let id = 1; id <= PETS; id += 500)
    await Promise.all(Array.from({ length: Math.min(500, PETS - id + 1) }, (_, i) => stores.pets.insert(pet(id + i))));
  await db.collection<{ _id: number }>("pets").updateMany({ _id: { $lte: GONE } }, gonePet);
  for (let id = 1; id <= PETS; id += 10_000)
    await db
      .collection<{ _id: number }>("orders")
      .insertMany(Array.from({ length: Math.min(10_000, PETS - id + 1) }, (_, i) => order(id + i)));
  const container = process.env.PSQL_CONTAINER;
  if (container)
    for (const name of ["pets", "orders"]) {
      // The state autovacuum leaves: the entries of the documents the tombstones replaced are gone.
      const id = psql(
        container,
        `SELECT collection_id FROM documentdb_api_catalog.collections WHERE database_name = '${db.databaseName}' AND collection_name = '${name}'`,
      ).trim();
      psql(container, `VACUUM ANALYZE documentdb_data.documents_${id}`);
    }
  out(`${PETS} pets and orders, the first ${GONE} of each gone`);
  const walkingId = () =>
    db
      .collection("pets")
      .find({ lifecycle: { $exists: false } }, { projection: { outbox: 0 } })
      .sort({ _id: 1 })
      .limit(21)
      .toArray();
  const listings = [
    ["every pet, first page, as listed before: by `_id`, unhinted (reference)", walkingId] as const,
    ...Object.entries(PET_LISTINGS).map(([name, query]) => [name, () => stores.pets.list(query)] as const),
    ...Object.entries(ORDER_LISTINGS).map(([name, query]) => [name, () => stores.orders.list(query)] as const),
  ];
  for (const [name, list] of listings) {
    finds.length = 0;
    const page = await list();
    const commands = [...finds];
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      await list();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    out(`\n${name}: ${page.length} items, ${commands.length} find(s), median ${times[RUNS >> 1]!.toFixed(2)} ms`);
    for (const find of commands) {
      const stats = (await db.command({ explain: find, verbosity: "executionStats" })).executionStats as
        Document | undefined;
      const hint = find.hint === undefined ? "" : ` (hint ${String(find.hint)})`;
      if (stats) out(`  keys examined ${stats.totalKeysExamined}, docs examined ${stats.totalDocsExamined}${hint}`);
      else if (container) out(`  ${analyze(container, db, find)}${hint}`);
      else out("  no executionStats from this engine (set PSQL_CONTAINER on FerretDB)");
    }
  }
} finally {
  await db.dropDatabase();
  await client.close();
}
