import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import type { PetChange, PetCondition, PetQuery, Pets, PetVariant, PetWrite } from "../../core/pets/pets.port.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { pageOf } from "./memory-paging.ts";

export interface StoredPet {
  pet: PetRecord;
  outbox: DomainEvent[];
}

const copyPet = (p: PetRecord): PetRecord => ({
  ...p,
  holds: p.holds.map((h) => ({ ...h, since: h.since && new Date(h.since) })),
  provisionalSince: p.provisionalSince && new Date(p.provisionalSince),
});

const compare = (value: number, bound: { eq: number } | { gt: number }): boolean =>
  "eq" in bound ? value === bound.eq : value > bound.gt;

/** The same semantics as the MongoDB filter the MongoDB adapter builds from a condition (contract-tested). */
export const petMeets = (pet: PetRecord, c: PetCondition): boolean =>
  (c.lifecycle === undefined || (c.lifecycle === "none" ? pet.lifecycle === undefined : pet.lifecycle === c.lifecycle)) &&
  (c.status === undefined || pet.status === c.status) &&
  (c.statusNot === undefined || pet.status !== c.statusNot) &&
  (c.stock === undefined || compare(pet.stock, c.stock)) &&
  (c.hold === undefined || pet.holds.some((h) => h.orderId === c.hold?.orderId && h.units === c.hold.units)) &&
  (c.noHoldOf === undefined || !pet.holds.some((h) => h.orderId === c.noHoldOf)) &&
  (c.holdCount === undefined || compare(pet.holds.length, c.holdCount)) &&
  (c.revision === undefined || pet.revision === c.revision) &&
  (c.movingTo === undefined || (c.movingTo === "none" ? pet.movingTo === undefined : pet.movingTo === c.movingTo)) &&
  (c.provisionalSince === undefined || pet.provisionalSince?.getTime() === c.provisionalSince.getTime());

const changed = (pet: PetRecord, c: PetChange): PetRecord => {
  let holds = pet.holds;
  if (c.removeHoldOf !== undefined) holds = holds.filter((h) => h.orderId !== c.removeHoldOf);
  if (c.addHold) holds = [...holds, { ...c.addHold, since: c.addHold.since && new Date(c.addHold.since) }].sort((a, b) => a.orderId - b.orderId);
  return {
    ...pet,
    ...(c.name !== undefined && { name: c.name }),
    ...(c.categoryId !== undefined && { categoryId: c.categoryId }),
    ...(c.status !== undefined && { status: c.status }),
    ...(c.stock !== undefined && { stock: "to" in c.stock ? c.stock.to : pet.stock + c.stock.by }),
    ...(c.lifecycle !== undefined && { lifecycle: c.lifecycle === "none" ? undefined : c.lifecycle }),
    ...(c.movingTo !== undefined && { movingTo: c.movingTo === "none" ? undefined : c.movingTo }),
    ...(c.provisionalSince !== undefined && {
      provisionalSince: c.provisionalSince === "none" ? undefined : new Date(c.provisionalSince),
    }),
    holds,
    revision: pet.revision + 1,
  };
};

/** Every write checks and changes one pet without awaiting in between: atomic within the process. */
export class MemoryPets implements Pets {
  readonly #pets = new Map<number, StoredPet>();

  async ofId(id: number): Promise<PetRecord | undefined> {
    const stored = this.#pets.get(id);
    return stored && copyPet(stored.pet);
  }

  async list(query: PetQuery): Promise<PetRecord[]> {
    const { statuses, categoryId, ids } = query;
    return this.#page(
      query,
      (pet) =>
        pet.lifecycle === undefined &&
        (statuses === undefined || statuses.includes(pet.status)) &&
        (categoryId === undefined || pet.categoryId === categoryId) &&
        (ids === undefined || ids.includes(pet.id)),
    );
  }

  async insert(pet: PetRecord): Promise<void> {
    if (this.#pets.has(pet.id)) throw new Error(`Pet ${pet.id} exists already`);
    this.#pets.set(pet.id, { pet: copyPet(pet), outbox: [] });
  }

  async write(id: number, variants: readonly PetVariant[]): Promise<PetWrite> {
    const stored = this.#pets.get(id);
    if (!stored) return { applied: undefined, pet: undefined };
    const applied = variants.findIndex((v) => petMeets(stored.pet, v.when));
    if (applied === -1) return { applied: undefined, pet: copyPet(stored.pet) };
    const variant = variants[applied] as PetVariant;
    const pet = changed(stored.pet, variant.then);
    this.#pets.set(id, { pet, outbox: [...stored.outbox, ...structuredClone(variant.then.events ?? [])] });
    return { applied, pet: copyPet(pet) };
  }

  async removeIf(id: number, when: PetCondition): Promise<boolean> {
    const stored = this.#pets.get(id);
    if (!stored || !petMeets(stored.pet, when)) return false;
    return this.#pets.delete(id);
  }

  async anyNaming(categoryId: number): Promise<boolean> {
    return [...this.#pets.values()].some(({ pet }) => pet.categoryId === categoryId || pet.movingTo === categoryId);
  }

  async provisional(page: PageRequest): Promise<PetRecord[]> {
    return this.#page(page, (pet) => pet.lifecycle !== undefined || pet.movingTo !== undefined);
  }

  async withHolds(page: PageRequest): Promise<PetRecord[]> {
    return this.#page(page, (pet) => pet.holds.length > 0);
  }

  /** The outbox's view: every pet's pending events. */
  pendingEvents(): DomainEvent[] {
    return [...this.#pets.values()].flatMap((stored) => structuredClone(stored.outbox));
  }

  acknowledge(ids: ReadonlySet<string>): void {
    for (const [id, stored] of this.#pets) {
      if (stored.outbox.some((e) => ids.has(e.id))) this.#pets.set(id, { ...stored, outbox: stored.outbox.filter((e) => !ids.has(e.id)) });
    }
  }

  #page(page: PageRequest, matches: (pet: PetRecord) => boolean): PetRecord[] {
    return pageOf([...this.#pets.values()].map((s) => s.pet), page, matches, copyPet);
  }
}
