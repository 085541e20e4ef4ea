import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { Order, OrderChanges } from "./order.ts";
import { closedByItself, explainRefusal, orderCompleted, visibleOrder } from "./order-access.ts";
import { orderOf } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import { petSideSeen, settleOrder } from "./settle-order.ts";
import { StockHints } from "./stock-hints.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

// Crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("complete order").
export class UpdateOrder {
  readonly #ports: Ports;
  readonly #hints: StockHints;
  /** `hints`: the instance's, shared with PlaceOrder, so a pet it saw needs no read for its fence. */
  constructor(ports: Ports, hints = new StockHints()) {
    this.#ports = ports;
    this.#hints = hints;
  }

  async execute(id: number, changes: OrderChanges, actor: Actor, expectedRevision?: number): Promise<Order> {
    const { orders, pets, clock } = this.#ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.state === "complete") throw orderCompleted(id);
    const shipDate = changes.shipDate ?? current.shipDate;
    if (changes.complete !== true) {
      const changed = await orders.changeShipDate({ orderId: id, expectedRevision, shipDate, events: [] });
      if (!changed.applied) throw explainRefusal(changed.order, id, expectedRevision);
      return orderOf(changed.order);
    }
    const at = clock.now();
    const shipped = shipDate ?? at;
    const completed = stampEvent(at, "order.completed", orderData({ ...current, shipDate: shipped }, true));
    const seen = await petSideSeen(pets, this.#hints, current.petId, id);
    const written = await orders.complete({
      orderId: id,
      expectedRevision,
      at,
      nonce: completed.id,
      shipDate: shipped,
      events: [completed],
    });
    const order = closedByItself(written, completed.id);
    if (!order) throw explainRefusal(written.order, id, expectedRevision);
    this.#hints.saw(order.petId, await settleOrder(this.#ports, order, seen));
    return orderOf(order);
  }
}
