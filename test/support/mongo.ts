/**
 * Helpers for test files that need MongoDB. The server comes from the
 * globalSetup in test/support/mongo-global-setup.ts (one per run); each test
 * file or test takes its own throw-away database with freshMongoDatabase().
 *
 *   describeMongo('MongoPetRepository', () => {
 *     let mongo: FreshMongoDatabase;
 *     beforeEach(async () => { mongo = await freshMongoDatabase('pets'); });
 *     afterEach(async () => { await mongo.close(); });
 *     ...
 *   });
 */
import { randomBytes } from "node:crypto";
import { MongoClient, type CommandStartedEvent, type Db, type Document, type MongoClientOptions } from "mongodb";
import { afterAll, beforeAll, beforeEach, describe, inject } from "vitest";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import type { Stores } from "../../core/stores.ts";

/** Client options for tests: every wait is bounded so a broken server fails fast. */
export const TEST_MONGO_CLIENT_OPTIONS: MongoClientOptions = {
  serverSelectionTimeoutMS: 5_000,
  connectTimeoutMS: 5_000,
  socketTimeoutMS: 30_000,
  maxPoolSize: 10,
};

export interface FreshMongoDatabase {
  client: MongoClient;
  db: Db;
  /** Drops the database and closes the client. Safe to call twice. */
  close(): Promise<void>;
}

/** The connection string from the global setup ('' when unavailable). */
export function mongoUrl(): string {
  // undefined when the global setup is not configured for this project
  const url: string | undefined = inject("mongoUrl");
  return url ?? "";
}

/** Why MongoDB suites are skipped, or '' when a server is available. */
export function mongoSkipReason(): string {
  const reason: string | undefined = inject("mongoUnavailable");
  if (reason) return reason;
  if (!mongoUrl()) return "no MongoDB server was provided (is test/support/mongo-global-setup.ts in globalSetup?)";
  return "";
}

/**
 * `describe` for suites that need MongoDB; `describe.skip` with the reason in
 * its title when no server is available. Under CI the global setup has already
 * failed the run in that case, so CI never skips silently.
 */
export function describeMongo(name: string, fn: () => void): void {
  const reason = mongoSkipReason();
  if (reason && process.env.CI !== "true") {
    describe.skip(`${name} [skipped: ${reason}]`, fn);
    return;
  }
  describe(name, fn);
}

/**
 * Connects to the run's server and hands out a database with a unique name
 * (`prefix` + random suffix); close() drops it.
 */
export async function freshMongoDatabase(prefix: string): Promise<FreshMongoDatabase> {
  const url = mongoUrl();
  if (!url) throw new Error(`MongoDB is unavailable: ${mongoSkipReason()}`);

  // MongoDB database names: at most 63 bytes, none of /\. "$*<>:|? allowed.
  const safePrefix = prefix.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40) || "test";
  const name = `${safePrefix}_${randomBytes(6).toString("hex")}`;

  const client = new MongoClient(url, TEST_MONGO_CLIENT_OPTIONS);
  await client.connect();
  const db = client.db(name);
  let closed = false;
  return {
    client,
    db,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await db.dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}

/**
 * Empties every collection of `db` and prepares it again, as a start-up does (id counters, indexes): emptied, not
 * dropped, so the indexes stay, and with them the uniqueness tests rely on.
 */
export async function emptyMongoDatabase(db: Db): Promise<void> {
  const collections = await db.collections();
  await Promise.all(collections.map((collection) => collection.deleteMany({})));
  await prepareMongoDatabase(db);
}

/** What `watchedMongoPerTest` hands the current test. */
export interface WatchedMongo {
  /** The suite's database, through a client of its own. */
  mongo: FreshMongoDatabase;
  /** A second client on it, which notes every command it sends there. */
  monitored: MongoClient;
  /** The database as `monitored` sees it. */
  db: Db;
  /** New stores over `db`, the database emptied and prepared again for the test. */
  stores: Stores;
}

/**
 * For a suite that looks at what the MongoDB adapters send: a prepared database of its own and a monitored client
 * on it, and before each test an emptied database and new stores. `commandsOf(run)` answers the commands `run`
 * sends, in order, as "<command> <collection>".
 */
export function watchedMongoPerTest(prefix: string): {
  current: () => WatchedMongo;
  commandsOf: (run: () => Promise<unknown>) => Promise<string[]>;
} {
  let mongo: FreshMongoDatabase | undefined;
  let monitored: MongoClient | undefined;
  let current: WatchedMongo | undefined;
  let commands: string[] = [];

  beforeAll(async () => {
    const fresh = await freshMongoDatabase(prefix);
    mongo = fresh;
    await prepareMongoDatabase(fresh.db);
    monitored = new MongoClient(mongoUrl(), { ...TEST_MONGO_CLIENT_OPTIONS, monitorCommands: true });
    await monitored.connect();
    monitored.on("commandStarted", (event: CommandStartedEvent) => {
      if (event.databaseName === fresh.db.databaseName)
        commands.push(`${event.commandName} ${event.command[event.commandName]}`);
    });
  });

  afterAll(async () => {
    await monitored?.close();
    await mongo?.close();
  });

  beforeEach(async () => {
    if (!mongo || !monitored) throw new Error("watchedMongoPerTest: the suite's database was not set up");
    await emptyMongoDatabase(mongo.db);
    const db = monitored.db(mongo.db.databaseName);
    current = { mongo, monitored, db, stores: mongoStoresFor(db, async () => {}) };
    commands = [];
  });

  return {
    current: () => {
      if (!current) throw new Error("watchedMongoPerTest: the database exists only inside a test and its hooks");
      return current;
    },
    commandsOf: async (run) => {
      commands = [];
      await run();
      return commands;
    },
  };
}

/** A client that records each `find` it sends (on `collection` only, when one is named) in `finds`, to explain. */
export const clientWatchingFinds = (finds: Document[], collection?: string): Promise<MongoClient> => {
  const client = new MongoClient(mongoUrl(), { ...TEST_MONGO_CLIENT_OPTIONS, monitorCommands: true });
  client.on("commandStarted", (event: CommandStartedEvent) => {
    if (event.commandName === "find" && (collection === undefined || event.command.find === collection))
      finds.push(event.command);
  });
  return client.connect();
};
