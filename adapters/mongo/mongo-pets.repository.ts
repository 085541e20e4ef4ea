import type { Collection, Db, Filter } from "mongodb";
import type { Pet, PetStatus } from "../../core/pets/pet.ts";
import type { PetQuery, Pets } from "../../core/pets/pets.port.ts";
import { findPage } from "./mongo-paging.ts";
import { guarded } from "./store-unavailable.ts";

interface PetDocument {
  _id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

const toDocument = (pet: Pet): PetDocument => ({ _id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });
const toPet = (doc: PetDocument): Pet => ({ id: doc._id, name: doc.name, categoryId: doc.categoryId, status: doc.status });

/** Listings by status or category walk these in id order; `anyInCategory` uses the second. */
export const createPetIndexes = async (db: Db): Promise<void> => {
  // One index per command: FerretDB 1.24 drops the connection when one createIndexes names several existing ones.
  await db.collection("pets").createIndex({ status: 1, _id: 1 });
  await db.collection("pets").createIndex({ categoryId: 1, _id: 1 });
};

/** Status changes are compare-and-set: the expected status is part of the filter of one update. */
export class MongoPets implements Pets {
  readonly #pets: Collection<PetDocument>;
  constructor(db: Db) {
    this.#pets = db.collection<PetDocument>("pets");
  }

  ofId(id: number): Promise<Pet | undefined> {
    return guarded(async () => {
      const doc = await this.#pets.findOne({ _id: id });
      return doc ? toPet(doc) : undefined;
    });
  }

  list(query: PetQuery): Promise<Pet[]> {
    return guarded(async () => {
      const filter: Filter<PetDocument> = {
        ...(query.statuses !== undefined && { status: { $in: [...query.statuses] } }),
        ...(query.categoryId !== undefined && { categoryId: query.categoryId }),
      };
      return (await findPage(this.#pets, filter, query, query.ids)).map(toPet);
    });
  }

  add(pet: Pet): Promise<void> {
    return guarded(async () => {
      await this.#pets.insertOne(toDocument(pet));
    });
  }

  replace(pet: Pet, expectedStatus: PetStatus): Promise<boolean> {
    return guarded(async () => {
      const { _id, ...fields } = toDocument(pet);
      const result = await this.#pets.updateOne({ _id, status: expectedStatus }, { $set: fields });
      return result.matchedCount === 1;
    });
  }

  changeStatus(id: number, from: PetStatus, to: PetStatus): Promise<boolean> {
    return guarded(async () => {
      const result = await this.#pets.updateOne({ _id: id, status: from }, { $set: { status: to } });
      return result.matchedCount === 1;
    });
  }

  remove(id: number): Promise<boolean> {
    return guarded(async () => (await this.#pets.deleteOne({ _id: id })).deletedCount === 1);
  }

  anyInCategory(categoryId: number): Promise<boolean> {
    return guarded(async () => (await this.#pets.findOne({ categoryId }, { projection: { _id: 1 } })) !== null);
  }
}
