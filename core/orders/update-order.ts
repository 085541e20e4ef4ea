import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { Order, OrderChanges } from "./order.ts";
import { explainMissedWrite, orderCompleted, visibleOrder } from "./order-access.ts";
import { orderOf } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import { readPetSide, settleOrder } from "./settle-order.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

// Crash points of a completion: docs/consistency.md#multi-step-writes-and-their-crash-points ("complete order").
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
    const seen = complete ? await readPetSide(pets, current.petId, id) : undefined;
    const updated = await orders.write(
      id,
      { state: "open", revision: expectedRevision },
      { ...(complete && { state: "complete" as const, settling: clock.now() }), shipDate: shipDate ?? "none", events },
    );
    if (!updated) return await explainMissedWrite(orders, id, expectedRevision);
    if (seen) await settleOrder(this.#ports, updated, seen);
    return orderOf(updated);
  }
}
