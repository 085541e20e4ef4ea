import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { Order, OrderChanges } from "./order.ts";
import { closedByItself, explainRefusal, orderCompleted, visibleOrder } from "./order-access.ts";
import { orderOf, type OrderRecord } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";
import { petSideSeen, settleOrder } from "./settle-order.ts";
import type { MarkDrops } from "./mark-drops.ts";
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
  readonly #drops: MarkDrops | undefined;
  /**
   * `hints`: the instance's, shared with PlaceOrder, so a pet it saw needs no read for its fence; `drops`: the
   * instance's, so the settle mark waits to ride on a later write and a post still waiting rides on the settlement.
   */
  constructor(ports: Ports, hints = new StockHints(), drops?: MarkDrops) {
    this.#ports = ports;
    this.#hints = hints;
    this.#drops = drops;
  }

  async execute(id: number, changes: OrderChanges, actor: Actor, expectedRevision?: number): Promise<Order> {
    const { orders, pets, clock } = this.#ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.state === "complete") throw orderCompleted(id);
    if (changes.complete !== true) return await this.#changeShipDate(current, changes, expectedRevision);
    const shipDate = changes.shipDate ?? current.shipDate;
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
    this.#hints.saw(order.petId, await settleOrder(this.#ports, order, seen, this.#drops));
    return orderOf(order);
  }

  /** At the revision read when no If-Match gave one: a copy of the write landing later is refused. */
  async #changeShipDate(read: OrderRecord, changes: OrderChanges, expectedRevision?: number): Promise<Order> {
    for (let current = read; ;) {
      const changed = await this.#ports.orders.changeShipDate({
        orderId: current.id,
        expectedRevision: expectedRevision ?? current.revision,
        shipDate: changes.shipDate ?? current.shipDate,
        events: [],
      });
      if (changed.applied) return orderOf(changed.order);
      // Another change came first: this one goes on top of it.
      if (expectedRevision !== undefined || changed.order?.state !== "open")
        throw explainRefusal(changed.order, current.id, expectedRevision);
      current = changed.order;
    }
  }
}
