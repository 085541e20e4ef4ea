import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import { release } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { explainMissedWrite, orderCompleted, visibleOrder } from "./order-access.ts";
import type { Orders } from "./orders.port.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

/**
 * DELETE: cancels an open order and gives its units back to stock.
 * cancel order: 1 order open → cancelled (invisible tombstone) + order.cancelled   crash → recovery releases
 *                 the hold of a cancelled order
 *               2 release the hold (stock back; pending → available from stock 0)   idempotent by order id
 */
export class CancelOrder {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, actor: Actor, expectedRevision?: number): Promise<void> {
    const { orders, pets, clock } = this.#ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.state === "complete") throw orderCompleted(id);
    const cancelled = stampEvent(clock.now(), "order.cancelled", orderData(current, false));
    const written = await orders.write(id, { state: "open", revision: expectedRevision }, { state: "cancelled", events: [cancelled] });
    if (!written) return explainMissedWrite(orders, id, expectedRevision);
    await release(pets, clock, written.petId, id, written.quantity);
  }
}
