import { fenceOf } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import { applySettlement, clearSettleMark } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

/** `fence` must be read before the order was last seen settling: docs/consistency.md#marks-and-fences. */
export const settleOrder = async ({ orders, pets, clock }: Ports, order: OrderRecord, fence: number): Promise<void> => {
  const how = order.state === "cancelled" ? "release" : "consume";
  for (let seen = fence; ;) {
    const { outcome, pet } = await applySettlement(pets, clock, how, order, seen);
    if (outcome !== "fence-moved") break;
    seen = fenceOf(pet, order.id);
    if (!(await orders.ofId(order.id))?.settling) return;
  }
  await orders.settled(order.id);
  await clearSettleMark(pets, order.petId, order.id);
};

export const readFence = async (pets: Pets, petId: number, orderId: number): Promise<number> =>
  fenceOf(await pets.ofId(petId), orderId);
