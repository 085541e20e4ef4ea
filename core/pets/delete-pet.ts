import type { Orders } from "../orders/orders.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError, notFound, revisionMismatch } from "../shared/domain-error.ts";
import { isVisible } from "./pet-record.ts";
import type { Pets } from "./pets.port.ts";

interface Ports {
  pets: Pets;
  orders: Orders;
  clock: Clock;
}

// Crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("delete pet").
export class DeletePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, expectedRevision?: number): Promise<void> {
    const { pets, clock } = this.#ports;
    for (;;) {
      // Refusals are read, never written: no copy of a refused write can land once its reason went.
      const pet = await pets.ofId(id);
      if (pet?.lifecycle === "deleting") break;
      if (!isVisible(pet)) throw notFound("Pet", id);
      if (expectedRevision !== undefined && pet.revision !== expectedRevision) throw revisionMismatch("Pet", id);
      if (pet.holdCount > 0) {
        throw new DomainError("pet_has_open_orders", `Pet ${id} has open orders; complete or cancel them first`);
      }
      // At the revision read, so a copy of this write landing later is refused too.
      const result = await pets.beginDeleting({ petId: id, since: clock.now(), expectedRevision: pet.revision });
      if (result.applied || result.pet?.lifecycle === "deleting") break;
    }
    await finishDeletingPet(this.#ports, id);
  }
}

/** Steps 2–3; idempotent, so the deleter and recovery may run it at once. */
export const finishDeletingPet = async (
  { pets, orders }: { pets: Pets; orders: Orders },
  id: number,
): Promise<void> => {
  await orders.removeAllOfPet(id);
  await pets.removeDeleting(id);
};
