import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import type { OrderChange, OrderCondition, OrderQuery, Orders } from "../../core/orders/orders.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { pageOf } from "./memory-paging.ts";

interface StoredOrder {
  order: OrderRecord;
  outbox: DomainEvent[];
}

const copyOrder = (o: OrderRecord): OrderRecord => ({
  ...o,
  shipDate: o.shipDate && new Date(o.shipDate),
  createdAt: new Date(o.createdAt),
});

const meets = (o: OrderRecord, c: OrderCondition): boolean =>
  o.state === c.state && (c.revision === undefined || o.revision === c.revision);

/** Conditional writes check and write in one synchronous step. */
export class MemoryOrders implements Orders {
  readonly #orders = new Map<number, StoredOrder>();

  async ofId(id: number): Promise<OrderRecord | undefined> {
    const stored = this.#orders.get(id);
    return stored && copyOrder(stored.order);
  }

  async ofIds(ids: readonly number[]): Promise<OrderRecord[]> {
    return ids.flatMap((id) => {
      const stored = this.#orders.get(id);
      return stored ? [copyOrder(stored.order)] : [];
    });
  }

  async list(query: OrderQuery): Promise<OrderRecord[]> {
    const { complete, petId, placedBy } = query;
    return this.#page(
      query,
      (o) =>
        (complete === undefined ? o.state === "open" || o.state === "complete" : o.state === (complete ? "complete" : "open")) &&
        (petId === undefined || o.petId === petId) &&
        (placedBy === undefined || o.placedBy === placedBy),
    );
  }

  async insert(order: OrderRecord, events: readonly DomainEvent[] = []): Promise<boolean> {
    if (this.#orders.has(order.id)) return false;
    this.#orders.set(order.id, { order: copyOrder(order), outbox: structuredClone([...events]) });
    return true;
  }

  async write(id: number, when: OrderCondition, then: OrderChange): Promise<OrderRecord | undefined> {
    const stored = this.#orders.get(id);
    if (!stored || !meets(stored.order, when)) return undefined;
    const order: OrderRecord = {
      ...stored.order,
      ...(then.state !== undefined && { state: then.state }),
      ...(then.shipDate !== undefined && { shipDate: then.shipDate === "none" ? undefined : new Date(then.shipDate) }),
      revision: stored.order.revision + 1,
    };
    this.#orders.set(id, { order, outbox: [...stored.outbox, ...structuredClone(then.events ?? [])] });
    return copyOrder(order);
  }

  async removeAllOfPet(petId: number): Promise<void> {
    for (const [id, { order }] of this.#orders) if (order.petId === petId && order.state !== "abandoned") this.#orders.delete(id);
  }

  pendingEvents(): DomainEvent[] {
    return [...this.#orders.values()].flatMap((stored) => structuredClone(stored.outbox));
  }

  /** Removes the events; a cancelled order's tombstone goes with its last event. */
  acknowledge(ids: ReadonlySet<string>): void {
    for (const [id, stored] of this.#orders) {
      if (!stored.outbox.some((e) => ids.has(e.id))) continue;
      const outbox = stored.outbox.filter((e) => !ids.has(e.id));
      if (outbox.length === 0 && stored.order.state === "cancelled") this.#orders.delete(id);
      else this.#orders.set(id, { ...stored, outbox });
    }
  }

  #page(page: PageRequest, matches: (o: OrderRecord) => boolean): OrderRecord[] {
    return pageOf([...this.#orders.values()].map((s) => s.order), page, matches, copyOrder);
  }
}
