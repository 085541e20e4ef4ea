import type { Collection, Db } from "mongodb";
import type { Categories } from "../../core/categories/categories.port.ts";
import { normalizedCategoryName, type CategoryRecord, type NewCategory } from "../../core/categories/category.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { isDuplicateKeyError, retryingDeadlocks } from "./duplicate-key.ts";
import { findPage } from "./mongo-paging.ts";
import { allMapped, definedFields, type EveryField } from "./mapping.ts";
import { guarded } from "./store-unavailable.ts";

interface CategoryDocument {
  _id: number;
  name: string;
  /** The name as uniqueness sees it (case folded); the unique index on it is the only name check there is. */
  nameKey: string;
  description?: string;
  revision: number;
  deletingSince?: Date;
}

const toDocument = ({
  id,
  name,
  description,
  revision,
  deletingSince,
  ...unmapped
}: CategoryRecord): CategoryDocument => {
  allMapped(unmapped);
  return definedFields({ _id: id, name, nameKey: normalizedCategoryName(name), description, revision, deletingSince });
};

const toCategory = (doc: CategoryDocument): EveryField<CategoryRecord> => ({
  id: doc._id,
  name: doc.name,
  description: doc.description,
  revision: doc.revision,
  deletingSince: doc.deletingSince,
});

export const createCategoryIndexes = async (db: Db): Promise<void> => {
  await db.collection("categories").createIndex({ nameKey: 1 }, { unique: true });
  await db.collection("categories").createIndex({ deletingSince: 1 });
};

/**
 * Two racing writes of one name are decided by the unique index: one succeeds, the other is refused (on the test
 * engine, after running again if it was aborted as a deadlock's victim).
 */
const nameTakenOr = (error: unknown, name: string): unknown =>
  isDuplicateKeyError(error)
    ? new DomainError("category_name_taken", `A category named "${name}" already exists`)
    : error;

export class MongoCategories implements Categories {
  readonly #categories: Collection<CategoryDocument>;
  constructor(db: Db) {
    this.#categories = db.collection<CategoryDocument>("categories");
  }

  ofId(id: number): Promise<CategoryRecord | undefined> {
    return guarded(async () => {
      const doc = await this.#categories.findOne({ _id: id });
      return doc ? toCategory(doc) : undefined;
    });
  }

  list(page: PageRequest): Promise<CategoryRecord[]> {
    return guarded(async () => (await findPage(this.#categories, {}, page)).map(toCategory));
  }

  add(category: CategoryRecord): Promise<void> {
    return guarded(async () => {
      try {
        await retryingDeadlocks(() => this.#categories.insertOne(toDocument(category)));
      } catch (error) {
        throw nameTakenOr(error, category.name);
      }
    });
  }

  replace(id: number, input: NewCategory, expectedRevision?: number): Promise<CategoryRecord | undefined> {
    return guarded(async () => {
      const fields = { name: input.name, nameKey: normalizedCategoryName(input.name) };
      try {
        const doc = await retryingDeadlocks(() =>
          this.#categories.findOneAndUpdate(
            { _id: id, ...(expectedRevision !== undefined && { revision: expectedRevision }) },
            input.description === undefined
              ? { $set: fields, $unset: { description: "" }, $inc: { revision: 1 } }
              : { $set: { ...fields, description: input.description }, $inc: { revision: 1 } },
            { returnDocument: "after" },
          ),
        );
        return doc ? toCategory(doc) : undefined;
      } catch (error) {
        throw nameTakenOr(error, input.name);
      }
    });
  }

  beginDelete(id: number, since: Date, expectedRevision?: number): Promise<boolean> {
    return guarded(async () => {
      const filter = {
        _id: id,
        deletingSince: { $exists: false },
        ...(expectedRevision !== undefined && { revision: expectedRevision }),
      };
      return (
        (await this.#categories.updateOne(filter, { $set: { deletingSince: since }, $inc: { revision: 1 } }))
          .matchedCount === 1
      );
    });
  }

  abortDelete(id: number, since: Date): Promise<boolean> {
    return guarded(async () => {
      const result = await this.#categories.updateOne(
        { _id: id, deletingSince: since },
        { $unset: { deletingSince: "" }, $inc: { revision: 1 } },
      );
      return result.matchedCount === 1;
    });
  }

  removeDeleting(id: number, since: Date): Promise<boolean> {
    return guarded(
      async () => (await this.#categories.deleteOne({ _id: id, deletingSince: since })).deletedCount === 1,
    );
  }

  deletingBefore(cutoff: Date, page: PageRequest): Promise<CategoryRecord[]> {
    return guarded(async () =>
      (await findPage(this.#categories, { deletingSince: { $lt: cutoff } }, page)).map(toCategory),
    );
  }
}
