import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import type {
  Cancellation,
  Completion,
  OrderQuery,
  Orders,
  OrderWrite,
  ShipDateChange,
} from "../../core/orders/orders.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { OrderedMap } from "./memory-ordered-map.ts";
import { MemoryPendingEvents, type StoredEvent } from "./memory-pending-events.ts";

/** A copy of `order` and its dates: the store keeps its own and hands out others. */
const copyOf = (order: OrderRecord): OrderRecord => ({
  ...order,
  createdAt: new Date(order.createdAt),
  shipDate: order.shipDate && new Date(order.shipDate),
  settling: order.settling && new Date(order.settling),
});

/**
 * Orders as plain records, each stored as a copy and handed out as another. Indexes keep them in ascending id: all
 * orders, by pet, by placing key, and the ones settling (recovery's work list), so a page or a pet's removal walks
 * only what it touches.
 */
export class MemoryOrders implements Orders {
  readonly #all = new OrderedMap<OrderRecord>();
  readonly #ofPet = new Map<number, OrderedMap<OrderRecord>>();
  readonly #ofPlacer = new Map<number, OrderedMap<OrderRecord>>();
  readonly #settling = new OrderedMap<OrderRecord>();
  readonly #events = new MemoryPendingEvents();
  /** The ids of deleted orders, taken for good: a late copy of an insert is refused (docs/consistency.md#late-copies). */
  readonly #gone = new Set<number>();

  async ofId(id: number): Promise<OrderRecord | undefined> {
    const order = this.#all.get(id);
    return order && copyOf(order);
  }

  async settlingBefore(cutoff: Date, page: PageRequest): Promise<OrderRecord[]> {
    const found: OrderRecord[] = [];
    for (const order of this.#settling.valuesAfter(page.after)) {
      if (found.length >= page.limit) break;
      if (order.settling!.getTime() <= cutoff.getTime()) found.push(copyOf(order));
    }
    return found;
  }

  async settled(id: number): Promise<void> {
    const order = this.#all.get(id);
    if (order?.settling === undefined) return;
    order.settling = undefined;
    this.#settling.delete(id);
    if (order.state === "cancelled" && !this.#events.has(id)) this.#remove(id);
  }

  async list(query: OrderQuery): Promise<OrderRecord[]> {
    const { complete, petId, placedBy, limit } = query;
    const page: OrderRecord[] = [];
    const index =
      petId !== undefined ? this.#ofPet.get(petId) : placedBy !== undefined ? this.#ofPlacer.get(placedBy) : this.#all;
    if (!index) return page;
    const walk = query.sort === "-id" ? index.valuesBefore(query.after) : index.valuesAfter(query.after);
    for (const order of walk) {
      if (page.length >= limit) break;
      const shown =
        (complete === undefined
          ? order.state === "open" || order.state === "complete"
          : order.state === (complete ? "complete" : "open")) &&
        (petId === undefined || order.petId === petId) &&
        (placedBy === undefined || order.placedBy === placedBy);
      if (shown) page.push(copyOf(order));
    }
    return page;
  }

  async insert(order: OrderRecord, events: readonly DomainEvent[] = []): Promise<boolean> {
    if (this.#all.has(order.id) || this.#gone.has(order.id)) return false;
    const kept = copyOf(order);
    this.#all.set(kept.id, kept);
    indexIn(this.#ofPet, kept.petId).set(kept.id, kept);
    indexIn(this.#ofPlacer, kept.placedBy).set(kept.id, kept);
    if (kept.settling !== undefined) this.#settling.set(kept.id, kept);
    this.#events.add(order.id, events);
    return true;
  }

  async cancel(cancellation: Cancellation): Promise<OrderWrite> {
    return this.#writeOpen(cancellation, (order) => {
      order.state = "cancelled";
      order.closedBy = cancellation.nonce;
      this.#startSettling(order, cancellation.at);
    });
  }

  async complete(completion: Completion): Promise<OrderWrite> {
    return this.#writeOpen(completion, (order) => {
      order.state = "complete";
      order.closedBy = completion.nonce;
      order.shipDate = new Date(completion.shipDate);
      this.#startSettling(order, completion.at);
    });
  }

  async changeShipDate(change: ShipDateChange): Promise<OrderWrite> {
    return this.#writeOpen(change, (order) => {
      order.shipDate = change.shipDate && new Date(change.shipDate);
    });
  }

  /** Checks and changes in one synchronous step, as the port's conditional writes require. */
  #writeOpen(write: Cancellation | Completion | ShipDateChange, change: (order: OrderRecord) => void): OrderWrite {
    const order = this.#all.get(write.orderId);
    const expected = write.expectedRevision ?? order?.revision;
    if (order?.state !== "open" || order.revision !== expected)
      return { applied: false, order: order && copyOf(order) };
    change(order);
    order.revision += 1;
    this.#events.add(order.id, write.events);
    return { applied: true, order: copyOf(order) };
  }

  #startSettling(order: OrderRecord, at: Date): void {
    order.settling = new Date(at);
    this.#settling.set(order.id, order);
  }

  async removeAllOfPet(petId: number): Promise<void> {
    // Collected first: the indexes change as orders go, and a walk must not see its index change.
    const removed: number[] = [];
    for (const order of this.#ofPet.get(petId)?.valuesAfter() ?? [])
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
      const order = this.#all.get(id);
      if (order?.state === "cancelled" && order.settling === undefined) this.#remove(id);
    }
  }

  /** Its pending events stay to be relayed: a change acknowledged before the removal still yields its event. */
  #remove(id: number): void {
    const order = this.#all.get(id);
    if (!order) return;
    this.#gone.add(id);
    this.#all.delete(id);
    this.#settling.delete(id);
    unindex(this.#ofPet, order.petId, id);
    unindex(this.#ofPlacer, order.placedBy, id);
  }
}

/** The orders indexed under `key`, made when there are none yet. */
const indexIn = (index: Map<number, OrderedMap<OrderRecord>>, key: number): OrderedMap<OrderRecord> => {
  let orders = index.get(key);
  if (!orders) index.set(key, (orders = new OrderedMap<OrderRecord>()));
  return orders;
};

/** Takes the order out of those indexed under `key`; an empty entry goes. */
const unindex = (index: Map<number, OrderedMap<OrderRecord>>, key: number, id: number): void => {
  const orders = index.get(key);
  orders?.delete(id);
  if (orders?.size === 0) index.delete(key);
};
