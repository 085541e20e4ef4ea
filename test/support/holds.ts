import type { PetRecord, Hold } from "../../core/pets/pet-record.ts";
import type { Pets } from "../../core/pets/pets.port.ts";

/** The pet with its holds as recovery reads them (a page of `withHolds`; `ofId` leaves them out); holds [] when it has none. */
export const petWithHolds = async (pets: Pets, id: number): Promise<PetRecord | undefined> => {
  const [holding] = await pets.withHolds({ after: id - 1, limit: 1 });
  if (holding?.id === id) return holding;
  const pet = await pets.ofId(id);
  return pet && { ...pet, holds: [] };
};

/** The pet's holds, in ascending order id; [] for a pet without any or no pet. */
export const holdsOf = async (pets: Pets, id: number): Promise<Hold[]> => (await petWithHolds(pets, id))?.holds ?? [];
