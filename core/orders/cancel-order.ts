import type { Actor } from "../access/permissions.ts";
import type { Inventory } from "../inventory/inventory.port.ts";
import { applyTransition } from "../pets/pet-status-transitions.ts";
import type { Pets } from "../pets/pets.port.ts";
import { explainMissedWrite, orderCompleted, visibleOrder } from "./order-access.ts";
import type { Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  inventory: Inventory;
}

/** DELETE: cancels an open order and gives its units back to stock. */
export class CancelOrder {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, actor: Actor): Promise<void> {
    const { orders, pets, inventory } = this.#ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.complete) throw orderCompleted(id);
    const removed = (await orders.removeOpen(id)) ?? (await explainMissedWrite(orders, id));
    let stock: number | undefined;
    try {
      stock = await inventory.release(removed.petId, removed.quantity);
    } catch (error) {
      await orders.add(removed); // compensate: the units are still reserved, so the order stays
      throw error;
    }
    // Stock was 0 before this cancellation and is above 0 again: the pet can be ordered once more.
    if (stock === removed.quantity) {
      await applyTransition(pets, removed.petId, "pending", "available", "order-cancelled-restocking");
    }
  }
}
