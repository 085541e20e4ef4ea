import type { Orders } from "../orders/orders.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError, notFound, revisionMismatch } from "../shared/domain-error.ts";
import type { Pets } from "./pets.port.ts";

interface Ports {
  pets: Pets;
  orders: Orders;
  clock: Clock;
}

/**
 * delete pet: 1 visible pet no order holds units of → deleting (invisible; no reservation matches it any more)
 *               crash → recovery finishes 2–3
 *             2 delete every order naming the pet (completed ones too: no order names a deleted pet)
 *             3 delete the pet document
 * "No units held" is part of the condition of write 1, so an order can never slip in between check and delete.
 * A DELETE of a pet already being deleted finishes the job.
 */
export class DeletePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, expectedRevision?: number): Promise<void> {
    const { pets, clock } = this.#ports;
    for (;;) {
      const result = await pets.beginDeleting({ petId: id, since: clock.now(), expectedRevision });
      const pet = result.pet;
      if (result.applied || pet?.lifecycle === "deleting") break;
      if (!pet || pet.lifecycle === "creating") throw notFound("Pet", id);
      if (expectedRevision !== undefined && pet.revision !== expectedRevision) throw revisionMismatch("Pet", id);
      if (pet.holdCount > 0) {
        throw new DomainError("pet_has_open_orders", `Pet ${id} has open orders; complete or cancel them first`);
      }
    }
    await finishDeletingPet(this.#ports, id);
  }
}

/** Steps 2–3; idempotent, so the deleter and recovery may run it at once. */
export const finishDeletingPet = async ({ pets, orders }: { pets: Pets; orders: Orders }, id: number): Promise<void> => {
  await orders.removeAllOfPet(id);
  await pets.removeDeleting(id);
};
