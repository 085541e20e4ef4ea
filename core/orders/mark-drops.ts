import type { MarkDrop } from "../pets/pets.port.ts";

/** How long a drop waits for a write of this instance to its pet to ride on before it is flushed on its own. */
export const MARK_DROP_WAIT_MS = 1_000;
/** Drops waiting at most: past it a mark is dropped at once (the instance's memory stays bounded). */
const CAPACITY = 10_000;

type Waiting = MarkDrop & { since: number };
const withoutSince = ({ since: _since, ...drop }: Waiting): MarkDrop => drop;

/**
 * The marks this instance has yet to drop: the next reservation it writes to the pet takes them along, else a flush
 * does (docs/consistency.md#mark-drops-that-ride). A drop waiting is a mark left on the pet, as a crash leaves one:
 * when it goes decides cost, never correctness; recovery drops what a dead instance left.
 */
export class MarkDrops {
  readonly #waiting = new Map<number, Waiting[]>();
  #count = 0;

  /** False when full: the caller drops the mark itself. */
  defer(petId: number, drop: MarkDrop, now: Date): boolean {
    if (this.#count >= CAPACITY) return false;
    this.#add(petId, [{ ...drop, since: now.getTime() }]);
    return true;
  }

  /** The pet's, taken out for a write to take along; `giveBack` those it did not drop. */
  take(petId: number): MarkDrop[] {
    return this.#takeAll(petId).map(withoutSince);
  }

  giveBack(petId: number, drops: readonly MarkDrop[], now: Date): void {
    if (drops.length > 0)
      this.#add(
        petId,
        drops.map((drop) => ({ ...drop, since: now.getTime() })),
      );
  }

  /** The one of an order and kind, taken out. */
  takeOf(petId: number, orderId: number, kind: MarkDrop["kind"]): MarkDrop | undefined {
    const waiting = this.#waiting.get(petId);
    const at = waiting?.findIndex((d) => d.orderId === orderId && d.kind === kind) ?? -1;
    if (at < 0) return undefined;
    const [drop] = waiting!.splice(at, 1);
    this.#count -= 1;
    if (waiting!.length === 0) this.#waiting.delete(petId);
    return withoutSince(drop!);
  }

  /** The pets with a drop that waited `waitMs` or more (every pet's with 0), each with all its drops, taken out. */
  due(now: Date, waitMs: number): { petId: number; drops: MarkDrop[] }[] {
    const before = now.getTime() - waitMs;
    const due = [...this.#waiting].filter(([, waiting]) => waiting.some((d) => d.since <= before));
    return due.map(([petId]) => ({ petId, drops: this.take(petId) }));
  }

  get size(): number {
    return this.#count;
  }

  #takeAll(petId: number): Waiting[] {
    const waiting = this.#waiting.get(petId) ?? [];
    this.#waiting.delete(petId);
    this.#count -= waiting.length;
    return waiting;
  }

  #add(petId: number, drops: Waiting[]): void {
    const waiting = this.#waiting.get(petId);
    if (waiting) waiting.push(...drops);
    else this.#waiting.set(petId, drops);
    this.#count += drops.length;
  }
}
