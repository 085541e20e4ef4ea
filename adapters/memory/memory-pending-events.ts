import type { DomainEvent } from "../../core/events/domain-event.ts";

/** A deep copy of plain JSON data; an event's payload is nothing else. The spread copies the flat fields at once. */
export const copyJson = <T>(value: T): T => {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const copy = { ...value } as Record<string, unknown>;
  for (const key in copy) {
    const field = copy[key];
    if (typeof field === "object" && field !== null) copy[key] = copyJson(field);
  }
  return copy as T;
};

/**
 * What structuredClone would make of an event, at a fraction of its cost (it is on every write that records one and
 * on every event handed out).
 */
export const copyEvent = (event: DomainEvent): DomainEvent =>
  ({
    id: event.id,
    type: event.type,
    occurredAt: new Date(event.occurredAt),
    data: copyJson(event.data),
  }) as DomainEvent;

/**
 * A pending event as kept: a copy no caller holds, its time in ms (the order's first key), its document, and whether
 * it is still pending (acknowledging it clears the flag; the queue steps over it later).
 */
export interface StoredEvent {
  readonly event: DomainEvent;
  readonly at: number;
  readonly owner: number;
  pending: boolean;
}

/** The outbox's order: by time, then by id. */
export const isOlder = (a: StoredEvent, b: StoredEvent): boolean =>
  a.at < b.at || (a.at === b.at && a.event.id < b.event.id);

/** A document's events when it has had more than one since it last had none: how many are pending, and all of them, oldest first. */
interface Owned {
  pending: number;
  events: StoredEvent[];
}

/**
 * The outbox of one kind of document (pets, orders): the events not yet acknowledged, each with the document it was
 * written on, in the outbox's order. Appending and acknowledging a document's events touch only those
 * events; nothing is copied but what goes in and what is handed out.
 *
 * Events are not kept by id. A relay acknowledges what it was handed, and the outbox gives those back as they are
 * stored (`acknowledge`'s first argument), so no id is hashed on the way: hashing each id into a map was the dearest
 * step of recording an event (docs/performance.md#where-the-speed-code-came-from). Only ids acknowledged otherwise
 * (a caller's own list, a relay that was not the last one handed a batch) need an index by id: it is built the first
 * time, kept up to date while events are pending, and let go of when none are.
 */
export class MemoryPendingEvents {
  /** Each document's pending events: the one itself (an order's usual one), more in an Owned. */
  #byOwner = new Map<number, StoredEvent | Owned>();
  /** The pending events by id, only once an acknowledgement needed it (see the class comment). */
  #byId: Map<string, StoredEvent> | undefined;
  /**
   * Every pending event, oldest first, from `#head` on, among ones no longer pending. Those are not taken out one by
   * one: the ones in front are stepped over once, the rest are skipped by readers until they outnumber the pending
   * ones, then the queue is rebuilt.
   */
  #queue: StoredEvent[] = [];
  #head = 0;
  #pending = 0;
  /** Called after each `add` (the outbox wakes its relays). */
  onAdd: () => void = () => {};

  add(owner: number, events: readonly DomainEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) {
      // Ids are unique (stampEvent): an id is not looked for among the pending ones.
      const stored: StoredEvent = { event: copyEvent(event), at: event.occurredAt.getTime(), owner, pending: true };
      this.#own(stored);
      this.#byId?.set(event.id, stored);
      this.#enqueue(stored);
      this.#pending += 1;
    }
    this.onAdd();
  }

  /** Up to `limit` pending events, oldest first, as stored (the caller copies what it hands out). */
  oldest(limit: number): StoredEvent[] {
    const found: StoredEvent[] = [];
    const queue = this.#queue;
    for (let i = this.#head; i < queue.length && found.length < limit; i++) {
      const stored = queue[i]!;
      if (stored.pending) found.push(stored);
    }
    return found;
  }

  /**
   * Removes `handed` (events `oldest` gave out; ones no longer pending are skipped) and the events with these `ids`;
   * answers the documents whose last pending event went.
   */
  acknowledge(handed: readonly StoredEvent[], ids: readonly string[] = []): number[] {
    const drained: number[] = [];
    for (let i = 0; i < handed.length; i++) this.#settle(handed[i]!, drained);
    if (ids.length > 0 && this.#pending > 0) {
      const byId = this.#indexById();
      for (let i = 0; i < ids.length; i++) {
        const stored = byId.get(ids[i]!);
        if (stored) this.#settle(stored, drained);
      }
    }
    this.#tidy();
    return drained;
  }

  /** Whether the document has events still pending. */
  has(owner: number): boolean {
    return this.#byOwner.has(owner);
  }

  #own(stored: StoredEvent): void {
    const owned = this.#byOwner.get(stored.owner);
    if (owned === undefined) this.#byOwner.set(stored.owner, stored);
    else if (!("events" in owned)) this.#byOwner.set(stored.owner, { pending: 2, events: [owned, stored] });
    else {
      owned.pending += 1;
      owned.events.push(stored);
      // Acknowledged ones are let go of once they outnumber the pending ones (each is walked O(1) times, amortized).
      if (owned.events.length > 2 * owned.pending + 8) owned.events = owned.events.filter((e) => e.pending);
    }
  }

  /** No longer pending: its document's count goes down, and a document left with none is drained. */
  #settle(stored: StoredEvent, drained: number[]): void {
    if (!stored.pending) return;
    this.#unmark(stored);
    const owned = this.#byOwner.get(stored.owner);
    if (owned === stored || (owned !== undefined && "events" in owned && --owned.pending === 0)) {
      this.#byOwner.delete(stored.owner);
      drained.push(stored.owner);
    }
  }

  #unmark(stored: StoredEvent): void {
    stored.pending = false;
    this.#pending -= 1;
    this.#byId?.delete(stored.event.id);
  }

  #indexById(): Map<string, StoredEvent> {
    if (!this.#byId) {
      this.#byId = new Map();
      const queue = this.#queue;
      for (let i = this.#head; i < queue.length; i++)
        if (queue[i]!.pending) this.#byId.set(queue[i]!.event.id, queue[i]!);
    }
    return this.#byId;
  }

  /** At the end when it is the newest (nearly always: events are mostly written in time order), else where it sorts (found by bisection, the later ones moved up). */
  #enqueue(stored: StoredEvent): void {
    const queue = this.#queue;
    if (queue.length === this.#head || !isOlder(stored, queue[queue.length - 1]!)) {
      queue.push(stored);
      return;
    }
    let low = this.#head;
    let high = queue.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (isOlder(stored, queue[middle]!)) high = middle;
      else low = middle + 1;
    }
    queue.splice(low, 0, stored);
  }

  /**
   * Steps over the events gone from the front; rebuilds the queue when more than half of it is gone, and lets go of
   * the front when it is more than half of the array. Each event is stepped over or moved O(1) times, amortized.
   */
  #tidy(): void {
    const queue = this.#queue;
    while (this.#head < queue.length && !queue[this.#head]!.pending) this.#head++;
    const kept = queue.length - this.#head;
    if (this.#pending === 0) {
      // Drained (after nearly every relay run): new maps rather than the emptied ones, so a map that grows and shrinks
      // every turn stays young instead of making its new tables in V8's old generation (docs/performance.md).
      this.#byOwner = new Map();
      this.#byId = undefined;
      this.#queue = [];
      this.#head = 0;
    } else if (kept - this.#pending > this.#pending) {
      const pending: StoredEvent[] = [];
      for (let i = this.#head; i < queue.length; i++) if (queue[i]!.pending) pending.push(queue[i]!);
      this.#queue = pending;
      this.#head = 0;
    } else if (this.#head > kept) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
  }
}
