import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import type { OrderChange, OrderCondition, OrderQuery, Orders } from "../../core/orders/orders.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { OrderedMap } from "./memory-ordered-map.ts";
import { MemoryPendingEvents, type StoredEvent } from "./memory-pending-events.ts";

/**
 * An order as kept: its times in ms, not Dates. Orders are kept for good, and each is then one object instead of
 * three (every one of them passes young collections before it settles).
 */
type KeptOrder = Omit<OrderRecord, "shipDate" | "createdAt" | "settling"> & {
  readonly shipDate: number | undefined;
  readonly createdAt: number;
  readonly settling?: number | undefined;
};

/** Replaced, never changed, by a write. */
interface StoredOrder {
  order: KeptOrder;
}

const keptOf = (o: OrderRecord): KeptOrder => ({
  ...o,
  shipDate: o.shipDate?.getTime(),
  createdAt: o.createdAt.getTime(),
  settling: o.settling?.getTime(),
});

const copyOrder = (o: KeptOrder): OrderRecord => ({
  ...o,
  shipDate: o.shipDate === undefined ? undefined : new Date(o.shipDate),
  createdAt: new Date(o.createdAt),
  settling: o.settling === undefined ? undefined : new Date(o.settling),
});

const meets = (o: KeptOrder, c: OrderCondition): boolean =>
  o.state === c.state && (c.revision === undefined || o.revision === c.revision);

/**
 * Conditional writes check and write in one synchronous step. The orders are also kept in ascending id, overall,
 * by pet and by the key that placed them, updated in the same step, so neither a page (a customer's pages are
 * always by `placedBy`) nor a pet's removal scans or sorts every order.
 */
export class MemoryOrders implements Orders {
  readonly #orders = new Map<number, StoredOrder>();
  readonly #events = new MemoryPendingEvents();
  readonly #all = new OrderedMap<StoredOrder>();
  readonly #ofPet = new Map<number, OrderedMap<StoredOrder>>();
  readonly #ofPlacer = new Map<number, OrderedMap<StoredOrder>>();
  /** Orders whose pet side is not yet settled: recovery's work list. */
  readonly #settling = new OrderedMap<StoredOrder>();

  async ofId(id: number): Promise<OrderRecord | undefined> {
    const stored = this.#orders.get(id);
    return stored && copyOrder(stored.order);
  }

  async settlingBefore(cutoff: Date, page: PageRequest): Promise<OrderRecord[]> {
    const found: OrderRecord[] = [];
    for (const { order } of this.#settling.valuesAfter(page.after)) {
      if (found.length >= page.limit) break;
      if (order.settling !== undefined && order.settling <= cutoff.getTime()) found.push(copyOrder(order));
    }
    return found;
  }

  async settled(id: number): Promise<void> {
    const stored = this.#orders.get(id);
    if (stored?.order.settling === undefined) return;
    stored.order = { ...stored.order, settling: undefined };
    this.#settling.delete(id);
    if (stored.order.state === "cancelled" && !this.#events.has(id)) this.#remove(id);
  }

  async list(query: OrderQuery): Promise<OrderRecord[]> {
    const { complete, petId, placedBy, limit } = query;
    const page: OrderRecord[] = [];
    const index =
      petId !== undefined ? this.#ofPet.get(petId) : placedBy !== undefined ? this.#ofPlacer.get(placedBy) : this.#all;
    const walk = query.sort === "-id" ? index?.valuesBefore(query.after) : index?.valuesAfter(query.after);
    for (const { order: o } of walk ?? []) {
      if (page.length >= limit) break;
      const shown =
        (complete === undefined
          ? o.state === "open" || o.state === "complete"
          : o.state === (complete ? "complete" : "open")) &&
        (petId === undefined || o.petId === petId) &&
        (placedBy === undefined || o.placedBy === placedBy);
      if (shown) page.push(copyOrder(o));
    }
    return page;
  }

  async insert(order: OrderRecord, events: readonly DomainEvent[] = []): Promise<boolean> {
    if (this.#orders.has(order.id)) return false;
    const stored: StoredOrder = { order: keptOf(order) };
    if (order.settling !== undefined) this.#settling.set(order.id, stored);
    this.#orders.set(order.id, stored);
    this.#all.set(order.id, stored);
    indexIn(this.#ofPet, order.petId).set(order.id, stored);
    indexIn(this.#ofPlacer, order.placedBy).set(order.id, stored);
    this.#events.add(order.id, events);
    return true;
  }

  async write(id: number, when: OrderCondition, then: OrderChange): Promise<OrderRecord | undefined> {
    const stored = this.#orders.get(id);
    if (!stored || !meets(stored.order, when)) return undefined;
    stored.order = {
      ...stored.order,
      ...(then.state !== undefined && { state: then.state }),
      ...(then.shipDate !== undefined && { shipDate: then.shipDate === "none" ? undefined : then.shipDate.getTime() }),
      ...(then.settling !== undefined && { settling: then.settling.getTime() }),
      revision: stored.order.revision + 1,
    };
    if (then.settling !== undefined) this.#settling.set(id, stored);
    this.#events.add(id, then.events ?? []);
    return copyOrder(stored.order);
  }

  async removeAllOfPet(petId: number): Promise<void> {
    // Collected first: the indexes change in place, and a walk must not see its map change.
    const removed: number[] = [];
    for (const { order } of this.#ofPet.get(petId)?.valuesAfter() ?? [])
      if (order.state !== "abandoned") removed.push(order.id);
    for (let i = 0; i < removed.length; i++) this.#remove(removed[i]!);
  }

  /** `listener` is called after each write that records events on the orders (the outbox's, which wakes its relays). */
  onEvents(listener: () => void): void {
    this.#events.onAdd = listener;
  }

  /** The outbox's view: up to `limit` of the orders' pending events, oldest first, as stored (the outbox copies what it hands out). */
  oldestEvents(limit: number): StoredEvent[] {
    return this.#events.oldest(limit);
  }

  /** Removes these events (`handed` as `oldestEvents` gave them, `ids` by id); a settled cancelled order goes with its last event. */
  acknowledge(handed: readonly StoredEvent[], ids: readonly string[]): void {
    for (const id of this.#events.acknowledge(handed, ids)) {
      const order = this.#orders.get(id)?.order;
      if (order?.state === "cancelled" && order.settling === undefined) this.#remove(id);
    }
  }

  #remove(id: number): void {
    const stored = this.#orders.get(id);
    if (!stored) return;
    this.#orders.delete(id);
    this.#all.delete(id);
    this.#settling.delete(id);
    unindex(this.#ofPet, stored.order.petId, id);
    unindex(this.#ofPlacer, stored.order.placedBy, id);
    this.#events.drop(id);
  }
}

/** The orders indexed under `key`, made when there are none yet. */
const indexIn = (index: Map<number, OrderedMap<StoredOrder>>, key: number): OrderedMap<StoredOrder> => {
  let orders = index.get(key);
  if (!orders) index.set(key, (orders = new OrderedMap()));
  return orders;
};

/** Takes the order out of those indexed under `key`; an empty entry goes. */
const unindex = (index: Map<number, OrderedMap<StoredOrder>>, key: number, id: number): void => {
  const orders = index.get(key);
  orders?.delete(id);
  if (orders?.size === 0) index.delete(key);
};
