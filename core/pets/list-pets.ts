import { lookahead, toPage, type Page } from "../shared/page.ts";
import type { Pet } from "./pet.ts";
import { nameKeyOf, nameOrderKeyOf } from "./pet-name-key.ts";
import { petOf } from "./pet-record.ts";
import type { PetQuery, Pets } from "./pets.port.ts";

export class ListPets {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  async execute(query: PetQuery): Promise<Page<Pet>> {
    const namePrefix = query.namePrefix === undefined ? undefined : nameKeyOf(query.namePrefix);
    // The cursor carries the plain name key (readable in the Link header); the stores compare order keys.
    const afterName = query.afterName === undefined ? undefined : nameOrderKeyOf(query.afterName);
    const fetched = await this.#pets.list({ ...query, namePrefix, afterName, ...lookahead(query) });
    const page = toPage(fetched.map(petOf), query, (pet) => pet.id);
    const last = page.items.at(-1);
    return query.sort === "name" && page.nextAfter !== undefined && last
      ? { ...page, nextAfterName: nameKeyOf(last.name) }
      : page;
  }
}
