import { MongoClient } from "mongodb";
import { beforeAll } from "vitest";
import { migrateMongoDatabase, prepareMongoDatabase, mongoStoresFor } from "../../adapters/mongo/mongo-stores.ts";
import type { Stores } from "../../core/stores.ts";
import {
  describeMongo,
  emptyMongoDatabase,
  freshMongoDatabase,
  mongoUrl,
  TEST_MONGO_CLIENT_OPTIONS,
  type FreshMongoDatabase,
} from "../support/mongo.ts";
import { runAllContracts } from "./all-contracts.ts";

describeMongo("MongoDB adapters", () => {
  let mongo: FreshMongoDatabase;
  let stores: Stores;
  /** Another client on the same database: a second service instance. */
  let secondClient: MongoClient;
  let sibling: Stores;

  beforeAll(async () => {
    mongo = await freshMongoDatabase("contracts");
    await prepareMongoDatabase(mongo.db);
    stores = mongoStoresFor(mongo.db, async () => {});
    secondClient = await new MongoClient(mongoUrl(), TEST_MONGO_CLIENT_OPTIONS).connect();
  });

  runAllContracts({
    name: "mongo",
    // Emptied and prepared again (emptyMongoDatabase); new adapters, the sibling's too, forget what the last test's
    // adapters remembered or held (id blocks, rate-limit shares).
    async fresh() {
      await emptyMongoDatabase(mongo.db);
      stores = mongoStoresFor(mongo.db, async () => {});
      sibling = mongoStoresFor(secondClient.db(mongo.db.databaseName), async () => {});
      return stores;
    },
    sibling: () => sibling,
    restart: () => migrateMongoDatabase(mongo.db),
    async close() {
      await secondClient?.close();
      await mongo?.close();
    },
  });
});
