import { fenceOf, markOf } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import { applySettlement, clearSettleMark, keepReservation } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

/** What an actor read of the order's pet before it saw the order unsettled: docs/consistency.md#marks-and-fences. */
export interface PetSide {
  /** The fence of the order's bucket. */
  fence: number;
  /** The nonce of a reserve mark of the order still on the pet (its placer had not dropped it yet). */
  reserveMark: string | undefined;
}

/** `seen` must be read before the order was last seen settling: docs/consistency.md#marks-and-fences. */
export const settleOrder = async ({ orders, pets, clock }: Ports, order: OrderRecord, seen: PetSide): Promise<void> => {
  // A settled order may be deleted (a relayed cancellation, its pet's deletion); a reserve mark it owned, left
  // behind, would then look like a placing that died, and recovery would give its units back a second time.
  if (seen.reserveMark !== undefined && seen.reserveMark === order.reservation)
    await keepReservation(pets, order.petId, order.id, seen.reserveMark);
  const how = order.state === "cancelled" ? "release" : "consume";
  for (let fence = seen.fence; ;) {
    const { outcome, pet } = await applySettlement(pets, clock, how, order, fence);
    if (outcome !== "fence-moved") break;
    fence = fenceOf(pet, order.id);
    if (!(await orders.ofId(order.id))?.settling) return;
  }
  await orders.settled(order.id);
  await clearSettleMark(pets, order.petId, order.id);
};

export const readPetSide = async (pets: Pets, petId: number, orderId: number): Promise<PetSide> => {
  const pet = await pets.ofId(petId);
  return { fence: fenceOf(pet, orderId), reserveMark: markOf(pet, orderId, "reserve")?.nonce };
};
