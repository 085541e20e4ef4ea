import { fenceOf, markOf, type PetRecord } from "../pets/pet-record.ts";
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

export interface PetSide {
  fence: number;
  /** As read with the fence: which case of the settlement is likely. */
  pet: PetRecord | undefined;
  /** Of the order's reserve mark still on the pet. */
  reserveMark: string | undefined;
}

/** `seen` must be read before the order was last seen settling: docs/consistency.md#marks-and-fences. */
export const settleOrder = async ({ orders, pets, clock }: Ports, order: OrderRecord, seen: PetSide): Promise<void> => {
  // Left on a deleted order, its reserve mark would look like a dead placing's and be undone.
  if (seen.reserveMark !== undefined && seen.reserveMark === order.reservation)
    await keepReservation(pets, order.petId, order.id, seen.reserveMark);
  const how = order.state === "cancelled" ? "release" : "consume";
  for (let { fence, pet: sight } = seen; ;) {
    const { outcome, pet } = await applySettlement(pets, clock, how, order, fence, sight);
    if (outcome !== "fence-moved") break;
    fence = fenceOf(pet, order.id);
    sight = pet;
    if (!(await orders.ofId(order.id))?.settling) return;
  }
  await orders.settled(order.id);
  await clearSettleMark(pets, order.petId, order.id);
};

export const readPetSide = async (pets: Pets, petId: number, orderId: number): Promise<PetSide> => {
  const pet = await pets.ofId(petId);
  return { fence: fenceOf(pet, orderId), pet, reserveMark: markOf(pet, orderId, "reserve")?.nonce };
};
