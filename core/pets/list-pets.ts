import { lookahead, toPage, type Page } from "../shared/page.ts";
import type { Pet } from "./pet.ts";
import { petOf } from "./pet-record.ts";
import type { PetQuery, Pets } from "./pets.port.ts";

export class ListPets {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  async execute(query: PetQuery): Promise<Page<Pet>> {
    const fetched = await this.#pets.list({ ...query, ...lookahead(query) });
    return toPage(fetched.map(petOf), query, (pet) => pet.id);
  }
}
