import type { Collection, Db } from "mongodb";
import type { Categories } from "../../core/categories/categories.port.ts";
import { normalizedCategoryName, type Category } from "../../core/categories/category.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { findPage } from "./mongo-paging.ts";
import { guarded } from "./store-unavailable.ts";

interface CategoryDocument {
  _id: number;
  name: string;
  /** The name as uniqueness sees it (case folded); the unique index on it is the only name check there is. */
  nameKey: string;
  description?: string;
}

const toDocument = (category: Category): CategoryDocument => ({
  _id: category.id,
  name: category.name,
  nameKey: normalizedCategoryName(category.name),
  ...(category.description !== undefined && { description: category.description }),
});

const toCategory = (doc: CategoryDocument): Category => ({
  id: doc._id,
  name: doc.name,
  ...(doc.description !== undefined && { description: doc.description }),
});

export const createCategoryIndexes = async (db: Db): Promise<void> => {
  await db.collection("categories").createIndex({ nameKey: 1 }, { unique: true });
};

/** Two racing writes of one name are decided by the unique index: one succeeds, the other is refused. */
const nameTakenOr = (error: unknown, category: Category): unknown =>
  isDuplicateKeyError(error)
    ? new DomainError("category_name_taken", `A category named "${category.name}" already exists`)
    : error;

export class MongoCategories implements Categories {
  readonly #categories: Collection<CategoryDocument>;
  constructor(db: Db) {
    this.#categories = db.collection<CategoryDocument>("categories");
  }

  ofId(id: number): Promise<Category | undefined> {
    return guarded(async () => {
      const doc = await this.#categories.findOne({ _id: id });
      return doc ? toCategory(doc) : undefined;
    });
  }

  list(page: PageRequest): Promise<Category[]> {
    return guarded(async () => (await findPage(this.#categories, {}, page)).map(toCategory));
  }

  add(category: Category): Promise<void> {
    return guarded(async () => {
      try {
        await this.#categories.insertOne(toDocument(category));
      } catch (error) {
        throw nameTakenOr(error, category);
      }
    });
  }

  replace(category: Category): Promise<boolean> {
    return guarded(async () => {
      const { _id, ...replacement } = toDocument(category);
      try {
        return (await this.#categories.replaceOne({ _id }, replacement)).matchedCount === 1;
      } catch (error) {
        throw nameTakenOr(error, category);
      }
    });
  }

  remove(id: number): Promise<boolean> {
    return guarded(async () => (await this.#categories.deleteOne({ _id: id })).deletedCount === 1);
  }
}
