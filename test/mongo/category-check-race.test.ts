import type { Collection, Db } from "mongodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPetIndexes, MongoPets } from "../../adapters/mongo/mongo-pets.repository.ts";
import { aPet, at } from "../contracts/mothers.ts";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "../support/mongo.ts";

/**
 * A category's deletion asks whether any pet names it or is moving into it. A move's last write sets the category
 * and clears `movingTo` at once; this runs that write between the check's reads, whichever read comes first, with
 * the reads made one after the other (as a busy server may run two reads sent together).
 */
describeMongo("the category check of a deletion, with a move finishing between its reads", () => {
  let mongo: FreshMongoDatabase;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("category_check");
    // Its reads name their indexes, as start-up creates them.
    await createPetIndexes(mongo.db);
  });
  afterAll(() => mongo?.close());

  /** Pets whose reads run one at a time, `between` once after the first. */
  const petsWithAStepBetweenReads = (db: Db, between: () => Promise<unknown>): MongoPets => {
    const real = db.collection("pets");
    let queue: Promise<unknown> = Promise.resolve();
    let reads = 0;
    const pets = new Proxy(real, {
      get(target, key, receiver) {
        if (key !== "findOne") return Reflect.get(target, key, receiver);
        return (...args: Parameters<Collection["findOne"]>) => {
          const read = queue.then(async () => {
            const found = await target.findOne(...args);
            if (++reads === 1) await between();
            return found;
          });
          queue = read;
          return read;
        };
      },
    });
    const proxied = new Proxy(db, {
      get: (target, key, receiver) => (key === "collection" ? () => pets : Reflect.get(target, key, receiver)),
    });
    return new MongoPets(proxied);
  };

  it("sees the pet, moving in or moved in, whichever read the move lands behind", async () => {
    const { db } = mongo;
    const finishMove = () =>
      db
        .collection("pets")
        .updateOne({ _id: 1 as never }, { $set: { categoryId: 9 }, $unset: { movingTo: "", provisionalSince: "" } });
    await new MongoPets(db).insert(
      aPet({ id: 1, categoryId: 2, movingTo: 9, provisionalSince: at("2026-11-21T12:00:00.000Z") }),
    );

    expect(await petsWithAStepBetweenReads(db, finishMove).anyNaming(9)).toBe(true);
    expect(await new MongoPets(db).anyNaming(9)).toBe(true);
    expect(await new MongoPets(db).anyNaming(2)).toBe(false);
  });
});
