import type { PageRequest } from "../shared/page.ts";
import type { Pet, PetStatus } from "./pet.ts";

export interface PetQuery extends PageRequest {
  statuses?: readonly PetStatus[] | undefined;
  categoryId?: number | undefined;
  ids?: readonly number[] | undefined;
}

export interface Pets {
  ofId(id: number): Promise<Pet | undefined>;
  /** Ascending id order, at most `limit` items. */
  list(query: PetQuery): Promise<Pet[]>;
  add(pet: Pet): Promise<void>;
  /** Replaces the pet only while its status is still `expectedStatus`; false when it is gone or changed meanwhile. */
  replace(pet: Pet, expectedStatus: PetStatus): Promise<boolean>;
  /** Compare-and-set of the status alone. */
  changeStatus(id: number, from: PetStatus, to: PetStatus): Promise<boolean>;
  remove(id: number): Promise<boolean>;
  anyInCategory(categoryId: number): Promise<boolean>;
}
