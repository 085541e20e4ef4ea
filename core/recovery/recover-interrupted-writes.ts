import type { Categories } from "../categories/categories.port.ts";
import { decideCategoryDeletion } from "../categories/delete-category.ts";
import type { OrderRecord } from "../orders/order-record.ts";
import type { Orders } from "../orders/orders.port.ts";
import { categoryAcceptsPets } from "../pets/category-check.ts";
import { finishCreating } from "../pets/create-pet.ts";
import { finishDeletingPet } from "../pets/delete-pet.ts";
import type { Hold, PetRecord } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import { consume, release } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { PageRequest } from "../shared/page.ts";

interface Ports {
  pets: Pets;
  orders: Orders;
  categories: Categories;
  clock: Clock;
}

export interface RecoveryReport {
  abandonedPlacings: number;
  releasedHolds: number;
  consumedHolds: number;
  finishedPets: number;
  removedPets: number;
  undoneMoves: number;
  deletedPets: number;
  decidedCategories: number;
}

const BATCH = 100;
/** Held orders whose states one store call asks for: on MongoDB a `$in` of at most this many ids. */
const STATES_BATCH = 1_000;

/** The holds of a page of pets, each with its pet, in order. */
function* heldIn(page: readonly PetRecord[]): Generator<{ pet: PetRecord; hold: Hold }> {
  for (const pet of page) for (const hold of pet.holds) yield { pet, hold };
}

/** The next `count` items (fewer at the end). */
const take = <T>(items: Iterator<T>, count: number): T[] => {
  const taken: T[] = [];
  for (let next = items.next(); !next.done; next = items.next()) if (taken.push(next.value) === count) break;
  return taken;
};

/** Walks a work list page by page in id order (items handled may drop out of it: the walk goes by id). */
const eachPage = async <T extends { id: number }>(
  fetch: (page: PageRequest) => Promise<T[]>,
  handle: (item: T) => Promise<void>,
): Promise<void> => {
  let after: number | undefined;
  for (;;) {
    const items = await fetch({ limit: BATCH, after });
    for (const item of items) await handle(item);
    if (items.length < BATCH) return;
    after = items.at(-1)?.id;
  }
};

/**
 * Finishes or undoes multi-step writes a crash (or a lost store answer) left half done (design §3). Every step is
 * a conditional, idempotent single-document write, so every instance may run it at any moment, also while the
 * interrupted request is still alive. Provisional documents are touched only once they are older than the grace
 * period, which is far longer than any request's store time-out.
 */
export class RecoverInterruptedWrites {
  readonly #ports: Ports;
  readonly #graceMs: number;
  readonly #statesBatch: number;
  /** `statesBatch`: how many held orders' states one store call asks for (tests make it small). */
  constructor(ports: Ports, graceMs: number, { statesBatch = STATES_BATCH }: { statesBatch?: number } = {}) {
    this.#ports = ports;
    this.#graceMs = graceMs;
    this.#statesBatch = statesBatch;
  }

  async execute(): Promise<RecoveryReport> {
    const report: RecoveryReport = {
      abandonedPlacings: 0,
      releasedHolds: 0,
      consumedHolds: 0,
      finishedPets: 0,
      removedPets: 0,
      undoneMoves: 0,
      deletedPets: 0,
      decidedCategories: 0,
    };
    const cutoff = new Date(this.#ports.clock.now().getTime() - this.#graceMs);
    await this.#settleHolds(cutoff, report);
    await this.#provisionalPets(cutoff, report);
    await this.#categoryDeletions(cutoff, report);
    return report;
  }

  /**
   * A hold is taken before its order is written, and an order is never re-created, so a hold whose order is
   * cancelled is left over from a cancellation (release it), one whose order is complete from a completion
   * (consume it), and one without an order, once older than the grace period, from a placing that died: recovery
   * takes the order's id with an `abandoned` tombstone (the slow placer, if alive, can then no longer insert its
   * order) and releases the hold. A younger hold without an order belongs to a placing in progress.
   */
  async #settleHolds(cutoff: Date, report: RecoveryReport): Promise<void> {
    const { orders, pets, clock } = this.#ports;
    let after: number | undefined;
    for (;;) {
      const page: PetRecord[] = await pets.withHolds({ limit: BATCH, after });
      if (page.length === 0) return;
      // The held orders' states, a bounded number at a time (a popular pet may hold units for very many open orders).
      // The chunks are taken as they are needed: a pair for each of a popular pet's holds, all at once, would live
      // through the whole pass and be promoted by V8's young collections for nothing.
      const held = heldIn(page);
      for (let chunk = take(held, this.#statesBatch); chunk.length > 0; chunk = take(held, this.#statesBatch)) {
        const states = await orders.statesOf(chunk.map(({ hold }) => hold.orderId));
        for (const { pet, hold } of chunk) {
          let state = states.get(hold.orderId);
          if (state === undefined) {
            if (hold.since && hold.since > cutoff) continue;
            const abandoned: OrderRecord = {
              id: hold.orderId,
              petId: pet.id,
              quantity: hold.units,
              shipDate: undefined,
              placedBy: 0,
              state: "abandoned",
              revision: 1,
              createdAt: clock.now(),
            };
            if (await orders.insert(abandoned)) {
              state = "abandoned";
              report.abandonedPlacings += 1;
            } else state = (await orders.ofId(hold.orderId))?.state;
          }
          if (state === undefined || state === "cancelled" || state === "abandoned") {
            if (await release(pets, clock, pet.id, hold.orderId, hold.units)) report.releasedHolds += 1;
          } else if (state === "complete") {
            if (await consume(pets, clock, pet.id, hold.orderId, hold.units)) report.consumedHolds += 1;
          }
        }
      }
      after = page.at(-1)?.id;
    }
  }

  async #provisionalPets(cutoff: Date, report: RecoveryReport): Promise<void> {
    const { pets, orders, categories } = this.#ports;
    await eachPage((page) => pets.provisional(page), async (pet) => {
      if (pet.lifecycle === "deleting") {
        await finishDeletingPet({ pets, orders }, pet.id);
        report.deletedPets += 1;
        return;
      }
      if (!pet.provisionalSince || pet.provisionalSince > cutoff) return;
      if (pet.lifecycle === "creating") {
        if (await categoryAcceptsPets(categories, pet.categoryId)) {
          if (await finishCreating(pets, pet.id)) report.finishedPets += 1;
        } else if (await pets.removeIf(pet.id, { lifecycle: "creating", provisionalSince: pet.provisionalSince })) {
          report.removedPets += 1;
        }
      } else if (pet.movingTo !== undefined) {
        const undo = await pets.write(pet.id, [
          { when: { movingTo: pet.movingTo, provisionalSince: pet.provisionalSince }, then: { movingTo: "none", provisionalSince: "none" } },
        ]);
        if (undo.applied !== undefined) report.undoneMoves += 1;
      }
    });
  }

  async #categoryDeletions(cutoff: Date, report: RecoveryReport): Promise<void> {
    const { categories, pets } = this.#ports;
    await eachPage(
      (page) => categories.deletingBefore(cutoff, page),
      async (category) => {
        if (!category.deletingSince) return;
        await decideCategoryDeletion({ categories, pets }, category.id, category.deletingSince);
        report.decidedCategories += 1;
      },
    );
  }
}
