import type { Categories } from "../categories/categories.port.ts";
import { decideCategoryDeletion } from "../categories/delete-category.ts";
import { abandonedOrder, type OrderRecord } from "../orders/order-record.ts";
import type { Orders } from "../orders/orders.port.ts";
import { readPetSide, settleOrder } from "../orders/settle-order.ts";
import { categoryAcceptsPets } from "../pets/category-check.ts";
import { finishCreating } from "../pets/create-pet.ts";
import { finishDeletingPet } from "../pets/delete-pet.ts";
import type { Mark, PetRecord } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import { clearSettleMark, postReservation, voidReservation } from "../pets/stock-writes.ts";
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
  undoneReservations: number;
  keptReservations: number;
  settledOrders: number;
  clearedMarks: number;
  finishedPets: number;
  removedPets: number;
  undoneMoves: number;
  deletedPets: number;
  decidedCategories: number;
}

const BATCH = 100;

/** Pages by id, not by offset: handled items drop out of the list. */
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

/** Any instance may run any step at any moment: docs/consistency.md#recovery */
export class RecoverInterruptedWrites {
  readonly #ports: Ports;
  readonly #graceMs: number;
  constructor(ports: Ports, graceMs: number) {
    this.#ports = ports;
    this.#graceMs = graceMs;
  }

  async execute(): Promise<RecoveryReport> {
    const report: RecoveryReport = {
      abandonedPlacings: 0,
      undoneReservations: 0,
      keptReservations: 0,
      settledOrders: 0,
      clearedMarks: 0,
      finishedPets: 0,
      removedPets: 0,
      undoneMoves: 0,
      deletedPets: 0,
      decidedCategories: 0,
    };
    const cutoff = new Date(this.#ports.clock.now().getTime() - this.#graceMs);
    await eachPage(
      (page) => this.#ports.pets.withMarks(page),
      async (pet) => {
        for (const mark of pet.marks) if (mark.since <= cutoff) await this.#settleMark(pet, mark, report);
      },
    );
    await eachPage(
      (page) => this.#ports.orders.settlingBefore(cutoff, page),
      (order) => this.#settleOrder(order, report),
    );
    await this.#provisionalPets(cutoff, report);
    await this.#categoryDeletions(cutoff, report);
    return report;
  }

  // The tombstone goes in before the undo, so a slow placer can no longer insert its order.
  async #settleMark(pet: PetRecord, mark: Mark, report: RecoveryReport): Promise<void> {
    const { orders, pets, clock } = this.#ports;
    let order = await orders.ofId(mark.orderId);
    if (mark.kind === "settle") {
      if (order?.settling) await orders.settled(order.id);
      await clearSettleMark(pets, pet.id, mark.orderId);
      report.clearedMarks += 1;
      return;
    }
    if (order === undefined) {
      const abandoned = abandonedOrder(mark.orderId, pet.id, mark.units, clock.now());
      if (await orders.insert(abandoned)) {
        order = abandoned;
        report.abandonedPlacings += 1;
      } else order = await orders.ofId(mark.orderId);
    }
    if (order && order.state !== "abandoned" && order.reservation === mark.nonce && mark.nonce !== undefined) {
      if (await postReservation(pets, pet.id, mark.orderId, mark.nonce)) report.keptReservations += 1;
    } else if (await voidReservation(pets, clock, pet.id, mark.orderId, mark.units, mark.nonce)) {
      report.undoneReservations += 1;
    }
  }

  // The fence before the order again: docs/consistency.md#marks-and-fences
  async #settleOrder(seen: OrderRecord, report: RecoveryReport): Promise<void> {
    const petSide = await readPetSide(this.#ports.pets, seen.petId, seen.id);
    const order = await this.#ports.orders.ofId(seen.id);
    if (!order?.settling) return;
    await settleOrder(this.#ports, order, petSide);
    report.settledOrders += 1;
  }

  async #provisionalPets(cutoff: Date, report: RecoveryReport): Promise<void> {
    const { pets, orders, categories } = this.#ports;
    await eachPage(
      (page) => pets.provisional(page),
      async (pet) => {
        if (pet.lifecycle === "deleting") {
          await finishDeletingPet({ pets, orders }, pet.id);
          report.deletedPets += 1;
          return;
        }
        if (!pet.provisionalSince || pet.provisionalSince > cutoff) return;
        if (pet.lifecycle === "creating") {
          if (await categoryAcceptsPets(categories, pet.categoryId)) {
            if (await finishCreating(pets, pet.id)) report.finishedPets += 1;
          } else if (await pets.removeCreating(pet.id, pet.provisionalSince)) {
            report.removedPets += 1;
          }
        } else if (pet.movingTo !== undefined) {
          const undo = await pets.undoMove({ petId: pet.id, to: pet.movingTo, since: pet.provisionalSince });
          if (undo.applied) report.undoneMoves += 1;
        }
      },
    );
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
