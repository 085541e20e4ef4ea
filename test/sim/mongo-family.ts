import { MongoBulkWriteError, MongoNetworkError, type AbstractCursor, type Collection, type Db } from "mongodb";
import { createCounters } from "../../adapters/mongo/mongo-id-allocator.ts";
import { migrateMongoDatabase, mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { DriverFault, Later } from "./engine.ts";
import type { StoreFamily } from "./simulate.ts";

/** Collection methods that reach the server; `find` and `aggregate` reach it through their cursor's reads. */
const COMMANDS = new Set([
  "findOne",
  "findOneAndUpdate",
  "findOneAndDelete",
  "findOneAndReplace",
  "updateOne",
  "updateMany",
  "replaceOne",
  "insertOne",
  "insertMany",
  "deleteOne",
  "deleteMany",
  "countDocuments",
  "estimatedDocumentCount",
  "distinct",
  "bulkWrite",
]);
const CURSORS = new Set(["find", "aggregate"]);
/** Driver calls run as a bulk write (insertMany is one). */
const BULK_WRITES = new Set(["insertMany", "bulkWrite"]);
const CURSOR_READS = new Set(["toArray", "next", "hasNext", "tryNext"]);

const never = new Promise<never>(() => {});

interface Armed {
  fault: DriverFault;
  countdown: number;
  fired: boolean;
  crash: () => void;
  note: (line: string) => void;
  later: Later;
}

/** Driver calls whose copy may land late: writes to pets and orders. */
const LATE_COPIES = new Set([
  "findOneAndUpdate",
  "updateOne",
  "updateMany",
  "deleteOne",
  "deleteMany",
  "insertOne",
  "bulkWrite",
]);

/** A stock setting (the only pet write conditional on `heldUnits`): its pet, so the engine counts the stock it gives. */
const stockSettingOf = (name: string, args: unknown[]): number | undefined => {
  const filter = args[0] as { _id?: unknown; heldUnits?: unknown } | undefined;
  return name === "pets" && filter?.heldUnits !== undefined && typeof filter._id === "number" ? filter._id : undefined;
};

/**
 * The database as the adapters of simulated instances see it: every command goes through `through`, where an armed
 * fault lands on the driver call it counts down to, as a lost connection would (a MongoNetworkError, which the
 * adapters treat as an outage).
 */
const faultyDb = (db: Db, current: () => Armed | undefined): Db => {
  const through = async (
    where: string,
    invoke: () => Promise<unknown>,
    late?: { name: string; method: string; args: unknown[] },
    again: () => Promise<unknown> = invoke,
  ): Promise<unknown> => {
    const armed = current();
    if (!armed || armed.fired || --armed.countdown > 0) return invoke();
    if (armed.fault === "again-later" || armed.fault === "arrive-later") {
      const writes = late && (late.name === "pets" || late.name === "orders");
      if (!writes || !LATE_COPIES.has(late.method)) return invoke();
    }
    armed.fired = true;
    armed.note(`driver ${where} ${armed.fault}`);
    const network = () => new MongoNetworkError(`injected ${armed.fault} at ${where}`);
    // As the driver throws it: a bulk write's command that failed as a whole is a MongoBulkWriteError with no write
    // error and nothing counted (mongodb's bulk/common.js), the network error kept as its `errorResponse`.
    const lost = () =>
      BULK_WRITES.has(where.slice(where.indexOf(".") + 1))
        ? new MongoBulkWriteError(network(), { insertedCount: 0, matchedCount: 0, deletedCount: 0 } as never)
        : network();
    switch (armed.fault) {
      case "throw-before":
        throw lost();
      case "throw-after":
        await invoke().catch(() => undefined);
        throw lost();
      case "twice":
        await invoke().catch(() => undefined);
        return again();
      case "crash-before":
        armed.crash();
        return never;
      case "crash-after":
        await invoke().catch(() => undefined);
        armed.crash();
        return never;
      case "again-later": {
        const answer = await invoke();
        armed.later(where, invoke, stockSettingOf(late!.name, late!.args));
        return answer;
      }
      case "arrive-later":
        armed.later(where, invoke, stockSettingOf(late!.name, late!.args));
        throw lost();
    }
  };
  const cursor = (inner: object, where: string): object => {
    const proxy: object = new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        const name = String(property);
        return (...args: unknown[]) => {
          if (CURSOR_READS.has(name)) {
            const read = () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            // A read sent twice is the command run again: the cursor the first run used up is rewound for it (read
            // again as it is, it would answer nothing, which no server says of a query that matched).
            return through(`${where}.${name}`, read, undefined, () => {
              (target as AbstractCursor).rewind();
              return read();
            });
          }
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };
  const collection = (inner: Collection, name: string): Collection =>
    new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        const method = String(property);
        const call = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
        if (COMMANDS.has(method))
          return (...args: unknown[]) =>
            through(`${name}.${method}`, () => call(...args) as Promise<unknown>, { name, method, args });
        if (CURSORS.has(method)) return (...args: unknown[]) => cursor(call(...args) as object, `${name}.${method}`);
        return call;
      },
    });
  return new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== "collection" || typeof value !== "function") return value;
      return (name: string, ...rest: unknown[]) =>
        collection((value as (...a: unknown[]) => Collection).apply(target, [name, ...rest]), name);
    },
  });
};

/** The MongoDB adapters on `db` (emptied before each schedule), each instance with adapters of its own. */
export const mongoFamily = (db: Db): StoreFamily => {
  let prepared: Promise<void> | undefined;
  return async () => {
    // Indexes once; then each schedule empties the collections (the indexes stay) and makes the id counters again.
    await (prepared ??= prepareMongoDatabase(db));
    await Promise.all((await db.collections()).map((collection) => collection.deleteMany({})));
    await createCounters(db);
    let armed: Armed | undefined;
    const faulty = faultyDb(db, () => armed);
    const raw = mongoStoresFor(db, async () => {});
    const withOutbox = { projection: { outbox: 1 } };
    return {
      raw,
      scale: { maxClients: 4, relaySeconds: 15, crashFactor: 3, lateFactor: 4 },
      instanceStores: () => mongoStoresFor(faulty, async () => {}),
      arm(fault, at, note, later) {
        let crash: (value: "crashed") => void = () => {};
        const crashed = new Promise<"crashed">((resolve) => {
          crash = resolve;
        });
        const current: Armed = { fault, countdown: at, fired: false, crash: () => crash("crashed"), note, later };
        armed = current;
        return {
          crashed,
          disarm: () => {
            armed = undefined;
            return current.fired;
          },
        };
      },
      // What connectMongoStores runs before a process serves (indexes aside: they exist).
      startUp: () => migrateMongoDatabase(faulty),
      pendingEvents: async () => {
        const events: DomainEvent[] = [];
        for (const name of ["pets", "orders"]) {
          const docs = await db
            .collection<{ _id: number; outbox: DomainEvent[] }>(name)
            .find({ "outbox.0": { $exists: true } }, withOutbox)
            .toArray();
          for (const doc of docs) events.push(...doc.outbox);
        }
        return events;
      },
      // Read whole, not through readAfter: a gap left by a crashed append holds a reader until it abandons the gap.
      loggedEvents: async () =>
        (
          await db
            .collection<{ eventId: string; type?: string; occurredAt?: Date; data?: unknown; hole?: true }>("event_log")
            .find({ hole: { $exists: false } })
            .sort({ _id: 1 })
            .toArray()
        ).map(
          (doc) => ({ id: doc.eventId, type: doc.type, occurredAt: doc.occurredAt, data: doc.data }) as DomainEvent,
        ),
      close: async () => {},
    };
  };
};
