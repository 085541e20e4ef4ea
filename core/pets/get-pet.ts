import { notFound } from "../shared/domain-error.ts";
import type { Pet } from "./pet.ts";
import { petOf } from "./pet-record.ts";
import type { Pets } from "./pets.port.ts";

export class GetPet {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  // A listing of one: visible pets only.
  async execute(id: number): Promise<Pet> {
    const [pet] = await this.#pets.list({ ids: [id], limit: 1 });
    if (!pet) throw notFound("Pet", id);
    return petOf(pet);
  }
}
