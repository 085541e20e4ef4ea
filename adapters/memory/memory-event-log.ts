import type { DomainEvent, EventType, OrderData } from "../../core/events/domain-event.ts";
import {
  EVENT_LOG_RETENTION_MS,
  type EventLog,
  type EventLogBounds,
  type EventLogPage,
  type LoggedEvent,
} from "../../core/events/event-log.port.ts";
import { stampedId, stampOf } from "../../core/events/event-stamp.ts";
import { petStatuses, type PetStatus } from "../../core/pets/pet.ts";
import { copyEvent } from "./memory-pending-events.ts";

/**
 * Where a new memory log starts: the wall clock's milliseconds times 1,000, so a log started after a restart never
 * hands out a position an earlier process's log did (that would take over 1,000 events a millisecond), and a reader
 * still holding one is told it comes from another log. Far below 2^53 for thousands of years.
 */
export const memoryLogOrigin = (now = Date.now()): number => now * 1_000;

/** The memory store's log keeps at most this many events, besides the retention time. */
export const MEMORY_EVENT_LOG_LIMIT = 10_000;

const types: readonly EventType[] = [
  "order.placed",
  "order.completed",
  "order.cancelled",
  "pet.status_changed",
  "inventory.changed",
];
const DELTA = 1;
const COMPLETE = 2;

/**
 * Positions are handed out and written in one synchronous step, so they are visible in order and without gaps: a
 * read never waits. The oldest events go once they are older than the retention time or more than the limit.
 * Kept in a ring of typed columns, no object an event: every placed order appends two events, and kept as objects
 * they were a good part of what the garbage collector copied and traced (docs/performance.md). An event this
 * process did not stamp, or whose data has another shape, is kept as a copy beside them.
 */
export class MemoryEventLog implements EventLog {
  readonly #limit: number;
  readonly #now: () => number;
  /** Positions `#first` to `#next - 1` are kept; position `p` is in slot `p % #limit` of every column. */
  #first: number;
  #next: number;
  readonly #origin: number;
  readonly #ms: Float64Array;
  readonly #sequence: Uint32Array;
  readonly #type: Uint8Array;
  readonly #flags: Uint8Array;
  /** The data's numbers (order: id, pet, quantity; status change: pet, from, to; stock change: pet, amount). */
  readonly #a: Float64Array;
  readonly #b: Float64Array;
  readonly #c: Float64Array;
  readonly #shipDate: Float64Array;
  readonly #appendedAt: Float64Array;
  /** Events kept as copies, by position. */
  readonly #others = new Map<number, DomainEvent>();
  /** The greatest id ever appended: a greater one is new without a lookup. */
  #greatest = "";

  /** `origin`: positions start above it (memoryLogOrigin, so that no two processes' logs share positions). */
  constructor(options: { limit?: number; now?: () => number; origin?: number } = {}) {
    this.#limit = options.limit ?? MEMORY_EVENT_LOG_LIMIT;
    this.#now = options.now ?? Date.now;
    this.#origin = options.origin ?? 0;
    this.#first = this.#next = this.#origin + 1;
    const n = this.#limit;
    this.#ms = new Float64Array(n);
    this.#sequence = new Uint32Array(n);
    this.#type = new Uint8Array(n);
    this.#flags = new Uint8Array(n);
    this.#a = new Float64Array(n);
    this.#b = new Float64Array(n);
    this.#c = new Float64Array(n);
    this.#shipDate = new Float64Array(n);
    this.#appendedAt = new Float64Array(n);
  }

  async append(events: readonly DomainEvent[]): Promise<void> {
    const appendedAt = this.#now();
    for (const event of events) {
      if (event.id > this.#greatest) this.#greatest = event.id;
      else if (this.#keeps(event.id)) continue;
      if (this.#next - this.#first === this.#limit) this.#drop();
      const position = this.#next++;
      const slot = position % this.#limit;
      this.#appendedAt[slot] = appendedAt;
      if (!this.#encode(event, slot)) this.#others.set(position, copyEvent(event));
    }
    this.#trim(appendedAt);
  }

  async readAfter(position: number, limit: number): Promise<EventLogPage> {
    this.#trim(this.#now());
    const from = Math.max(this.#first, position + 1);
    const to = Math.min(this.#next, from + Math.max(0, limit));
    const events: LoggedEvent[] = [];
    for (let p = from; p < to; p++) {
      const other = this.#others.get(p);
      events.push({ ...(other ? copyEvent(other) : this.#decode(p % this.#limit)), position: p } as LoggedEvent);
    }
    return { events, last: events.at(-1)?.position ?? position };
  }

  async bounds(): Promise<EventLogBounds> {
    this.#trim(this.#now());
    return { origin: this.#origin, oldest: this.#first, end: this.#next - 1 };
  }

  /** Into the columns when it has one of the stamped shapes; false when it has not (nothing written). */
  #encode(event: DomainEvent, slot: number): boolean {
    const stamp = stampOf(event.id);
    if (!stamp || stamp.ms !== event.occurredAt.getTime()) return false;
    let flags = 0;
    switch (event.type) {
      case "order.placed":
      case "order.completed":
      case "order.cancelled": {
        const { id, petId, quantity, shipDate, complete } = event.data;
        const ms = shipDate === undefined ? Number.NaN : Date.parse(shipDate);
        if (keyCount(event.data) !== (shipDate === undefined ? 4 : 5)) return false;
        if (shipDate !== undefined && (Number.isNaN(ms) || new Date(ms).toISOString() !== shipDate)) return false;
        if (!numbers(id, petId, quantity) || typeof complete !== "boolean") return false;
        this.#a[slot] = id;
        this.#b[slot] = petId;
        this.#c[slot] = quantity;
        this.#shipDate[slot] = ms;
        if (complete) flags |= COMPLETE;
        break;
      }
      case "pet.status_changed": {
        const { petId, from, to } = event.data;
        const f = petStatuses.indexOf(from);
        const t = petStatuses.indexOf(to);
        if (keyCount(event.data) !== 3 || !numbers(petId) || f < 0 || t < 0) return false;
        this.#a[slot] = petId;
        this.#b[slot] = f;
        this.#c[slot] = t;
        break;
      }
      case "inventory.changed": {
        const data = event.data;
        const delta = "delta" in data;
        const amount = delta ? data.delta : (data as { quantity: number }).quantity;
        if (keyCount(data) !== 2 || !numbers(data.petId, amount)) return false;
        this.#a[slot] = data.petId;
        this.#b[slot] = amount;
        if (delta) flags |= DELTA;
        break;
      }
      default:
        return false;
    }
    this.#ms[slot] = stamp.ms;
    this.#sequence[slot] = stamp.sequence;
    this.#type[slot] = types.indexOf(event.type);
    this.#flags[slot] = flags;
    return true;
  }

  #decode(slot: number): DomainEvent {
    const ms = this.#ms[slot]!;
    const type = types[this.#type[slot]!]!;
    const flags = this.#flags[slot]!;
    const a = this.#a[slot]!;
    const b = this.#b[slot]!;
    const c = this.#c[slot]!;
    let data: DomainEvent["data"];
    if (type === "pet.status_changed")
      data = { petId: a, from: petStatuses[b] as PetStatus, to: petStatuses[c] as PetStatus };
    else if (type === "inventory.changed") data = flags & DELTA ? { petId: a, delta: b } : { petId: a, quantity: b };
    else {
      const shipDate = this.#shipDate[slot]!;
      data = {
        id: a,
        petId: b,
        quantity: c,
        ...(!Number.isNaN(shipDate) && { shipDate: new Date(shipDate).toISOString() }),
        complete: (flags & COMPLETE) !== 0,
      } satisfies OrderData;
    }
    return { id: stampedId(ms, this.#sequence[slot]!), type, occurredAt: new Date(ms), data } as DomainEvent;
  }

  /**
   * Ids come in increasing order but for a retried batch or a write that lost a race to the relay, so the rare id that
   * does not is looked for among those kept, the newest first (a retried batch is among the newest).
   */
  #keeps(id: string): boolean {
    const stamp = stampOf(id);
    for (let p = this.#next - 1; stamp && p >= this.#first; p--) {
      const slot = p % this.#limit;
      if (this.#ms[slot] === stamp.ms && this.#sequence[slot] === stamp.sequence && !this.#others.has(p)) return true;
    }
    for (const event of this.#others.values()) if (event.id === id) return true;
    return false;
  }

  #drop(): void {
    this.#others.delete(this.#first);
    this.#first++;
  }

  #trim(now: number): void {
    while (this.#first < this.#next && this.#appendedAt[this.#first % this.#limit]! < now - EVENT_LOG_RETENTION_MS)
      this.#drop();
  }
}

const keyCount = (data: object): number => Object.keys(data).length;
const numbers = (...values: unknown[]): boolean => values.every((v) => typeof v === "number" && Number.isFinite(v));
