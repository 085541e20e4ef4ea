import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Outbox } from "../../core/events/outbox.port.ts";
import type { MemoryOrders } from "./memory-orders.repository.ts";
import { copyEvent, isOlder } from "./memory-pending-events.ts";
import type { MemoryPets } from "./memory-pets.repository.ts";

/**
 * The events pending on the memory pets and orders. Each kind keeps its own in the outbox's order, so a batch is a
 * merge of the oldest `limit` of each: the work is proportional to the batch, not to the backlog or the store.
 * It sees every write, so it wakes its watchers (the webhook worker) on each one that records events: they are
 * relayed within a turn of the event loop, not at the next poll.
 */
export class MemoryOutbox implements Outbox {
  readonly #pets: MemoryPets;
  readonly #orders: MemoryOrders;
  readonly #watchers = new Set<() => void>();
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
    let p = 0;
    let o = 0;
    while (batch.length < limit && (p < pets.length || o < orders.length)) {
      const next = o === orders.length || (p < pets.length && isOlder(pets[p]!, orders[o]!)) ? pets[p++]! : orders[o++]!;
      batch.push(copyEvent(next.event));
    }
    return batch;
  }

  async acknowledge(ids: readonly string[]): Promise<void> {
    const set = new Set(ids);
    this.#pets.acknowledge(set);
    this.#orders.acknowledge(set);
  }
}
