import { notFound } from "../shared/domain-error.ts";
import type { Pet } from "./pet.ts";
import { isVisible, petOf } from "./pet-record.ts";
import type { Pets } from "./pets.port.ts";

export class GetPet {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  async execute(id: number): Promise<Pet> {
    const pet = await this.#pets.ofId(id);
    if (!isVisible(pet)) throw notFound("Pet", id);
    return petOf(pet);
  }
}
