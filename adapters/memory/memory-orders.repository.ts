import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { OrderRecord, OrderState } from "../../core/orders/order-record.ts";
import type { OrderChange, OrderCondition, OrderQuery, Orders } from "../../core/orders/orders.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { IdIndex } from "./memory-id-index.ts";
import { MemoryPendingEvents, type StoredEvent } from "./memory-pending-events.ts";

const STATES: readonly OrderState[] = ["open", "complete", "cancelled", "abandoned"];
const stateCode = (state: OrderState): number => STATES.indexOf(state);
const OPEN = stateCode("open");
const COMPLETE = stateCode("complete");
const CANCELLED = stateCode("cancelled");
const ABANDONED = stateCode("abandoned");

/** A reservation nonce as place-order makes it: any prefix up to a dot, then a counter in canonical base 36. */
const COUNTER = /^(?:0|[1-9a-z][0-9a-z]{0,9})$/;
/** No reservation; one not of the prefix-and-counter form (kept as a string aside). */
const NO_NONCE = -1;
const ODD_NONCE = -2;
/** Distinct nonce prefixes remembered (one per placing instance); any beyond are kept as strings. */
const MAX_PREFIXES = 1024;

const timeOf = (date: Date | undefined): number => (date === undefined ? Number.NaN : date.getTime());
const dateOf = (ms: number): Date | undefined => (Number.isNaN(ms) ? undefined : new Date(ms));

/** Slots per page: a column grows a page at a time, so growing never copies or moves what it holds. */
const PAGE_BITS = 12;
const PAGE_SIZE = 1 << PAGE_BITS;
const IN_PAGE = PAGE_SIZE - 1;

/** One field of every order, by slot. */
class Column {
  readonly #pages: Float64Array[] = [];

  at(slot: number): number {
    return this.#pages[slot >>> PAGE_BITS]![slot & IN_PAGE]!;
  }

  put(slot: number, value: number): void {
    this.#pages[slot >>> PAGE_BITS]![slot & IN_PAGE] = value;
  }

  /** Room for one more page of slots. */
  addPage(): void {
    this.#pages.push(new Float64Array(PAGE_SIZE));
  }
}

/**
 * Orders kept as columns: each field of every order in pages of typed arrays, at the order's slot. An order is then
 * no object at all: nothing per order for the collector to trace, and no old-generation pages kept alive by a few
 * long-lived objects among garbage. The nonce is kept as its prefix's number
 * and its counter. Indexes map ids to slots in ascending id: all orders, by pet, by placing key, and the ones
 * settling (recovery's work list), so a page or a pet's removal walks only what it touches.
 */
export class MemoryOrders implements Orders {
  #capacity = 0;
  /** Slots in use or freed so far; freed ones are reused first. */
  #used = 0;
  readonly #free: number[] = [];
  readonly #id = new Column();
  readonly #petId = new Column();
  readonly #placedBy = new Column();
  readonly #quantity = new Column();
  readonly #revision = new Column();
  readonly #createdAt = new Column();
  /** NaN when none. */
  readonly #shipDate = new Column();
  /** NaN when not settling. */
  readonly #settlingSince = new Column();
  /** An index in STATES. */
  readonly #state = new Column();
  /** The nonce's prefix (an index in `#prefixes`), NO_NONCE or ODD_NONCE; its counter alongside. */
  readonly #noncePrefix = new Column();
  readonly #nonceCounter = new Column();
  readonly #columns = [
    this.#id,
    this.#petId,
    this.#placedBy,
    this.#quantity,
    this.#revision,
    this.#createdAt,
    this.#shipDate,
    this.#settlingSince,
    this.#state,
    this.#noncePrefix,
    this.#nonceCounter,
  ];
  readonly #prefixes: string[] = [];
  readonly #prefixIndex = new Map<string, number>();
  #lastPrefix: string | undefined;
  #lastPrefixIndex = ODD_NONCE;
  readonly #oddNonces = new Map<number, string>();

  readonly #all = new IdIndex();
  readonly #ofPet = new Map<number, IdIndex>();
  readonly #ofPlacer = new Map<number, IdIndex>();
  readonly #settling = new IdIndex();
  readonly #events = new MemoryPendingEvents();

  async ofId(id: number): Promise<OrderRecord | undefined> {
    const slot = this.#all.get(id);
    return slot < 0 ? undefined : this.#recordAt(slot);
  }

  async settlingBefore(cutoff: Date, page: PageRequest): Promise<OrderRecord[]> {
    const found: OrderRecord[] = [];
    const until = cutoff.getTime();
    this.#settling.walkUp(page.after, (slot) => {
      if (found.length >= page.limit) return false;
      if (this.#settlingSince.at(slot) <= until) found.push(this.#recordAt(slot));
      return true;
    });
    return found;
  }

  async settled(id: number): Promise<void> {
    const slot = this.#all.get(id);
    if (slot < 0 || Number.isNaN(this.#settlingSince.at(slot))) return;
    this.#settlingSince.put(slot, Number.NaN);
    this.#settling.delete(id);
    if (this.#state.at(slot) === CANCELLED && !this.#events.has(id)) this.#remove(id);
  }

  async list(query: OrderQuery): Promise<OrderRecord[]> {
    const { complete, petId, placedBy, limit } = query;
    const page: OrderRecord[] = [];
    const index =
      petId !== undefined ? this.#ofPet.get(petId) : placedBy !== undefined ? this.#ofPlacer.get(placedBy) : this.#all;
    if (!index) return page;
    const visit = (slot: number): boolean => {
      if (page.length >= limit) return false;
      const state = this.#state.at(slot);
      const shown =
        (complete === undefined ? state === OPEN || state === COMPLETE : state === (complete ? COMPLETE : OPEN)) &&
        (petId === undefined || this.#petId.at(slot) === petId) &&
        (placedBy === undefined || this.#placedBy.at(slot) === placedBy);
      if (shown) page.push(this.#recordAt(slot));
      return true;
    };
    if (query.sort === "-id") index.walkDown(query.after, visit);
    else index.walkUp(query.after, visit);
    return page;
  }

  async insert(order: OrderRecord, events: readonly DomainEvent[] = []): Promise<boolean> {
    if (this.#all.get(order.id) >= 0) return false;
    const slot = this.#newSlot();
    this.#id.put(slot, order.id);
    this.#petId.put(slot, order.petId);
    this.#placedBy.put(slot, order.placedBy);
    this.#quantity.put(slot, order.quantity);
    this.#revision.put(slot, order.revision);
    this.#createdAt.put(slot, order.createdAt.getTime());
    this.#shipDate.put(slot, timeOf(order.shipDate));
    this.#settlingSince.put(slot, timeOf(order.settling));
    this.#state.put(slot, stateCode(order.state));
    this.#keepNonce(slot, order.reservation);
    this.#all.set(order.id, slot);
    indexIn(this.#ofPet, order.petId).set(order.id, slot);
    indexIn(this.#ofPlacer, order.placedBy).set(order.id, slot);
    if (order.settling !== undefined) this.#settling.set(order.id, slot);
    this.#events.add(order.id, events);
    return true;
  }

  async write(id: number, when: OrderCondition, then: OrderChange): Promise<OrderRecord | undefined> {
    const slot = this.#all.get(id);
    if (slot < 0) return undefined;
    if (STATES[this.#state.at(slot)] !== when.state) return undefined;
    if (when.revision !== undefined && this.#revision.at(slot) !== when.revision) return undefined;
    if (then.state !== undefined) this.#state.put(slot, stateCode(then.state));
    if (then.shipDate !== undefined)
      this.#shipDate.put(slot, then.shipDate === "none" ? Number.NaN : then.shipDate.getTime());
    if (then.settling !== undefined) {
      this.#settlingSince.put(slot, then.settling.getTime());
      this.#settling.set(id, slot);
    }
    this.#revision.put(slot, this.#revision.at(slot) + 1);
    this.#events.add(id, then.events ?? []);
    return this.#recordAt(slot);
  }

  async removeAllOfPet(petId: number): Promise<void> {
    // Collected first: the indexes change as orders go, and a walk must not see its index change.
    const removed: number[] = [];
    this.#ofPet.get(petId)?.walkUp(undefined, (slot) => {
      if (this.#state.at(slot) !== ABANDONED) removed.push(this.#id.at(slot));
      return true;
    });
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
      const slot = this.#all.get(id);
      if (slot >= 0 && this.#state.at(slot) === CANCELLED && Number.isNaN(this.#settlingSince.at(slot)))
        this.#remove(id);
    }
  }

  #recordAt(slot: number): OrderRecord {
    return {
      id: this.#id.at(slot),
      petId: this.#petId.at(slot),
      quantity: this.#quantity.at(slot),
      shipDate: dateOf(this.#shipDate.at(slot)),
      placedBy: this.#placedBy.at(slot),
      revision: this.#revision.at(slot),
      state: STATES[this.#state.at(slot)]!,
      createdAt: new Date(this.#createdAt.at(slot)),
      reservation: this.#nonceAt(slot),
      settling: dateOf(this.#settlingSince.at(slot)),
    };
  }

  #keepNonce(slot: number, nonce: string | undefined): void {
    this.#noncePrefix.put(slot, NO_NONCE);
    if (nonce === undefined) return;
    const dot = nonce.lastIndexOf(".") + 1;
    const counter = nonce.slice(dot);
    const prefix = COUNTER.test(counter) ? this.#prefixOf(nonce.slice(0, dot)) : ODD_NONCE;
    this.#noncePrefix.put(slot, prefix);
    if (prefix === ODD_NONCE) this.#oddNonces.set(slot, nonce);
    else this.#nonceCounter.put(slot, Number.parseInt(counter, 36));
  }

  #nonceAt(slot: number): string | undefined {
    const prefix = this.#noncePrefix.at(slot);
    if (prefix === NO_NONCE) return undefined;
    if (prefix === ODD_NONCE) return this.#oddNonces.get(slot);
    return this.#prefixes[prefix]! + this.#nonceCounter.at(slot).toString(36);
  }

  /** The prefix's number, ODD_NONCE once there are too many to remember. */
  #prefixOf(prefix: string): number {
    // Nonces of one process share their prefix: the last one found is compared before any lookup.
    if (prefix === this.#lastPrefix) return this.#lastPrefixIndex;
    let index = this.#prefixIndex.get(prefix);
    if (index === undefined) {
      if (this.#prefixes.length >= MAX_PREFIXES) return ODD_NONCE;
      index = this.#prefixes.push(prefix) - 1;
      this.#prefixIndex.set(prefix, index);
    }
    this.#lastPrefix = prefix;
    this.#lastPrefixIndex = index;
    return index;
  }

  #newSlot(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#used === this.#capacity) {
      for (const column of this.#columns) column.addPage();
      this.#capacity += PAGE_SIZE;
    }
    return this.#used++;
  }

  /** Its pending events stay to be relayed: a change acknowledged before the removal still yields its event. */
  #remove(id: number): void {
    const slot = this.#all.get(id);
    if (slot < 0) return;
    this.#all.delete(id);
    this.#settling.delete(id);
    unindex(this.#ofPet, this.#petId.at(slot), id);
    unindex(this.#ofPlacer, this.#placedBy.at(slot), id);
    this.#oddNonces.delete(slot);
    this.#free.push(slot);
  }
}

/** The orders indexed under `key`, made when there are none yet. */
const indexIn = (index: Map<number, IdIndex>, key: number): IdIndex => {
  let orders = index.get(key);
  if (!orders) index.set(key, (orders = new IdIndex()));
  return orders;
};

/** Takes the order out of those indexed under `key`; an empty entry goes. */
const unindex = (index: Map<number, IdIndex>, key: number, id: number): void => {
  const orders = index.get(key);
  orders?.delete(id);
  if (orders?.size === 0) index.delete(key);
};
