import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { Order, OrderChanges } from "./order.ts";
import { explainMissedWrite, orderCompleted, visibleOrder } from "./order-access.ts";
import { orderOf } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import { readFence, settleOrder } from "./settle-order.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

/**
 * PATCH: set a ship date and/or complete the order. A completed order never changes again.
 * complete order (docs/consistency.md): 0 read the pet's fence · 1 open → complete + settling + order.completed ·
 * 2–4 settleOrder (the units leave; a sold-out pet is sold when its last holding order completes at stock 0)
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
    const fence = complete ? await readFence(pets, current.petId, id) : 0;
    const updated = await orders.write(
      id,
      { state: "open", revision: expectedRevision },
      { ...(complete && { state: "complete" as const, settling: clock.now() }), shipDate: shipDate ?? "none", events },
    );
    if (!updated) return explainMissedWrite(orders, id, expectedRevision);
    if (complete) await settleOrder(this.#ports, updated, fence);
    return orderOf(updated);
  }
}
