import type { IdAllocator, IdSequence } from "../../core/shared/id-allocator.port.ts";

export class MemoryIdAllocator implements IdAllocator {
  readonly #last = new Map<IdSequence, number>();

  async next(sequence: IdSequence): Promise<number> {
    const id = (this.#last.get(sequence) ?? 0) + 1;
    this.#last.set(sequence, id);
    return id;
  }
}
