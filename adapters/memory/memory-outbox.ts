import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Outbox } from "../../core/events/outbox.port.ts";
import type { MemoryOrders } from "./memory-orders.repository.ts";
import { copyEvent, isOlder, type StoredEvent } from "./memory-pending-events.ts";
import type { MemoryPets } from "./memory-pets.repository.ts";

/**
 * The events pending on the memory pets and orders. Each kind keeps its own in the outbox's order, so a batch is a
 * merge of the oldest `limit` of each: the work is proportional to the batch, not to the backlog or the store.
 * It sees every write, so it wakes its watchers (the webhook worker) on each one that records events: they are
 * relayed within a turn of the event loop, not at the next poll. It remembers the last batch it handed out, as
 * stored: acknowledging that batch (what a relay does) finds its events without looking up their ids.
 */
export class MemoryOutbox implements Outbox {
  readonly #pets: MemoryPets;
  readonly #orders: MemoryOrders;
  readonly #watchers = new Set<() => void>();
  /** The last batch handed out, as stored, and whether each came from the pets (else from the orders). */
  #handed: StoredEvent[] = [];
  #handedFromPets: boolean[] = [];
  /** The outbox of these pets and orders: one per pair (a second would take the first's watchers' wake-ups). */
  constructor(pets: MemoryPets, orders: MemoryOrders) {
    this.#pets = pets;
    this.#orders = orders;
    const wake = () => {
      for (const watcher of this.#watchers) watcher();
    };
    pets.onEvents(wake);
    orders.onEvents(wake);
  }

  watch(wake: () => void): () => void {
    const watcher = () => wake();
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  async pending(limit: number): Promise<DomainEvent[]> {
    const pets = this.#pets.oldestEvents(limit);
    const orders = this.#orders.oldestEvents(limit);
    const batch: DomainEvent[] = [];
    const handed: StoredEvent[] = [];
    const fromPets: boolean[] = [];
    let p = 0;
    let o = 0;
    while (batch.length < limit && (p < pets.length || o < orders.length)) {
      const isPet = o === orders.length || (p < pets.length && isOlder(pets[p]!, orders[o]!));
      const next = isPet ? pets[p++]! : orders[o++]!;
      batch.push(copyEvent(next.event));
      handed.push(next);
      fromPets.push(isPet);
    }
    this.#handed = handed;
    this.#handedFromPets = fromPets;
    return batch;
  }

  /** The ids of the last batch, in its order, are found as handed out; any others by id, on both kinds. */
  async acknowledge(ids: readonly string[]): Promise<void> {
    const pets: StoredEvent[] = [];
    const orders: StoredEvent[] = [];
    const others: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const handed = this.#handed[i];
      if (handed !== undefined && handed.event.id === ids[i]) (this.#handedFromPets[i] ? pets : orders).push(handed);
      else others.push(ids[i]!);
    }
    this.#pets.acknowledge(pets, others);
    this.#orders.acknowledge(orders, others);
  }
}
