import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import { consume } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { Order, OrderChanges } from "./order.ts";
import { explainMissedWrite, orderCompleted, visibleOrder } from "./order-access.ts";
import { orderOf } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

/**
 * PATCH: set a ship date and/or complete the order. A completed order never changes again.
 * complete order: 1 order open → complete (+ shipDate, order.completed)   crash → recovery consumes the hold of a
 *                   complete order
 *                 2 consume the hold (pending → sold when it was the last one at stock 0)   idempotent by order id
 */
export class UpdateOrder {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, changes: OrderChanges, actor: Actor, expectedRevision?: number): Promise<Order> {
    const { orders, pets, clock } = this.#ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.state === "complete") throw orderCompleted(id);
    const complete = changes.complete === true;
    const shipDate = changes.shipDate ?? current.shipDate ?? (complete ? clock.now() : undefined);
    const events = complete
      ? [stampEvent(clock.now(), "order.completed", orderData({ ...current, shipDate }, true))]
      : [];
    const updated = await orders.write(
      id,
      { state: "open", revision: expectedRevision },
      { ...(complete && { state: "complete" as const }), shipDate: shipDate ?? "none", events },
    );
    if (!updated) return explainMissedWrite(orders, id, expectedRevision);
    if (complete) await consume(pets, clock, updated.petId, id, updated.quantity);
    return orderOf(updated);
  }
}
