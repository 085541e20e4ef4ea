import type { Actor } from "../access/permissions.ts";
import { orderData, stampEvent } from "../events/event-stamp.ts";
import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { closedByItself, explainRefusal, orderCompleted, visibleOrder } from "./order-access.ts";
import type { Orders } from "./orders.port.ts";
import { petSideSeen, settleOrder } from "./settle-order.ts";
import type { MarkDrops } from "./mark-drops.ts";
import { StockHints } from "./stock-hints.ts";

interface Ports {
  orders: Orders;
  pets: Pets;
  clock: Clock;
}

// Crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("cancel order").
export class CancelOrder {
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

  async execute(id: number, actor: Actor, expectedRevision?: number): Promise<void> {
    const { orders, pets, clock } = this.#ports;
    const current = await visibleOrder(orders, id, actor);
    if (current.state === "complete") throw orderCompleted(id);
    const seen = await petSideSeen(pets, this.#hints, current.petId, id);
    const at = clock.now();
    const cancelled = stampEvent(at, "order.cancelled", orderData(current, false));
    const written = await orders.cancel({
      orderId: id,
      expectedRevision,
      at,
      nonce: cancelled.id,
      events: [cancelled],
    });
    const order = closedByItself(written, cancelled.id);
    if (!order) throw explainRefusal(written.order, id, expectedRevision);
    this.#hints.saw(order.petId, await settleOrder(this.#ports, order, seen, this.#drops));
  }
}
