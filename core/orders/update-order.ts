import type { Actor } from "../access/permissions.ts";
import type { Inventory } from "../inventory/inventory.port.ts";
import { applyTransition } from "../pets/pet-status-transitions.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { Order, OrderChanges } from "./order.ts";
import { explainMissedWrite, orderCompleted, visibleOrder } from "./order-access.ts";
import type { Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  inventory: Inventory;
  clock: Clock;
}

/** PATCH: set a ship date and/or complete the order. A completed order never changes again. */
export class UpdateOrder {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, changes: OrderChanges, actor: Actor): Promise<Order> {
    const { orders, pets, inventory, clock } = this.#ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.complete) throw orderCompleted(id);
    const complete = changes.complete === true;
    const shipDate = changes.shipDate ?? current.shipDate ?? (complete ? clock.now() : undefined);
    const updated = (await orders.updateOpen(id, { complete, shipDate })) ?? (await explainMissedWrite(orders, id));
    if (complete && !(await orders.hasOpenForPet(updated.petId)) && (await inventory.quantityOf(updated.petId)) === 0) {
      await applyTransition(pets, updated.petId, "pending", "sold", "last-open-order-completed");
    }
    return updated;
  }
}
