import { MongoClient } from "mongodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCategoryIndexes, MongoCategories } from "../../adapters/mongo/mongo-categories.repository.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import {
  describeMongo,
  freshMongoDatabase,
  mongoUrl,
  TEST_MONGO_CLIENT_OPTIONS,
  type FreshMongoDatabase,
} from "../support/mongo.ts";

const ROUNDS = 40;
const RACERS = 10;

/**
 * The unique category name under racing inserts, at the repository: two clients (two instances' pools), ten inserts of
 * one name a round. On the test engine (FerretDB v2, DocumentDB) a unique secondary index is an exclusion constraint:
 * racing inserts wait on each other, and about one round in ten formed a deadlock cycle that the victims re-formed by
 * running again at once, until every loser gave up deadlocked (a 27 s round; CI timed out on it). Every round must end
 * with one insert and nine `category_name_taken` refusals, whichever engine runs it.
 */
describeMongo("one category name inserted by ten racers from two clients", () => {
  let mongo: FreshMongoDatabase;
  let other: MongoClient;

  beforeAll(async () => {
    mongo = await freshMongoDatabase("category_name_races");
    other = await new MongoClient(mongoUrl(), TEST_MONGO_CLIENT_OPTIONS).connect();
    await createCategoryIndexes(mongo.db);
  });
  afterAll(async () => {
    await other?.close();
    await mongo?.close();
  });

  it(
    `${ROUNDS} rounds: each admits exactly one insert and refuses the others as category_name_taken`,
    { timeout: 120_000 },
    async () => {
      const repositories = [new MongoCategories(mongo.db), new MongoCategories(other.db(mongo.db.databaseName))];
      for (let round = 0; round < ROUNDS; round++) {
        const outcomes = await Promise.all(
          Array.from({ length: RACERS }, (_, i) => {
            const id = round * RACERS + i + 1;
            const name = `${i % 2 ? "Kind" : "KIND"} ${round}`;
            return repositories[i % 2]!.add({ id, name, revision: 1, deletingSince: undefined }).then(
              () => "inserted",
              (error: unknown) => (error instanceof DomainError ? error.code : `unexpected: ${String(error)}`),
            );
          }),
        );
        expect({ round, outcomes: outcomes.toSorted() }).toEqual({
          round,
          outcomes: [...Array(RACERS - 1).fill("category_name_taken"), "inserted"],
        });
      }
      expect(await mongo.db.collection("categories").countDocuments()).toBe(ROUNDS);
    },
  );
});
