import { lookahead, toPage, type Page } from "../shared/page.ts";
import type { Pet } from "./pet.ts";
import { nameKeyOf, nameOrderKeyOf } from "./pet-name-key.ts";
import { petOf, type ListedPet } from "./pet-record.ts";
import type { PetQuery, Pets } from "./pets.port.ts";

/**
 * A page of pets in the query's order, each shown by `present`: what listing pets and listing their stock share.
 * The cursor carries the plain name key (readable in the Link header); the stores compare order keys.
 */
export const pageOfPets = async <T>(pets: Pets, query: PetQuery, present: (pet: ListedPet) => T): Promise<Page<T>> => {
  const namePrefix = query.namePrefix === undefined ? undefined : nameKeyOf(query.namePrefix);
  const afterName = query.afterName === undefined ? undefined : nameOrderKeyOf(query.afterName);
  const fetched = await pets.list({ ...query, namePrefix, afterName, ...lookahead(query) });
  const page = toPage(fetched, query, (pet) => pet.id);
  const last = page.items.at(-1);
  const items = page.items.map(present);
  return query.sort === "name" && page.nextAfter !== undefined && last
    ? { items, nextAfter: page.nextAfter, nextAfterName: nameKeyOf(last.name) }
    : { items, nextAfter: page.nextAfter };
};

export class ListPets {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  execute(query: PetQuery): Promise<Page<Pet>> {
    return pageOfPets(this.#pets, query, petOf);
  }
}
