import type { Categories } from "../categories/categories.port.ts";
import { lockLost, notedId, type IdempotentAttempt } from "../idempotency/run-idempotently.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import { categoryAcceptsPets } from "./category-check.ts";
import type { NewPet, Pet } from "./pet.ts";
import { isVisible, petOf, type PetRecord, type WrittenPet } from "./pet-record.ts";
import type { Pets } from "./pets.port.ts";

interface Ports {
  pets: Pets;
  categories: Categories;
  ids: IdAllocator;
  clock: Clock;
}

export const unknownCategory = (categoryId: number): DomainError =>
  new DomainError("unknown_category", `Category ${categoryId} does not exist`);

// Crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("create pet").
export class CreatePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewPet, attempt?: IdempotentAttempt): Promise<Pet> {
    const { pets, categories, ids, clock } = this.#ports;
    const petId = notedId(attempt, "petId");
    const noted = petId === undefined ? undefined : await pets.ofId(petId);
    if (noted && noted.lifecycle === undefined) return petOf(noted);
    if (noted?.lifecycle === "creating") return await this.#finish(noted.id, noted.categoryId, attempt);
    // Refuses early, spending no id; the check after the insert decides.
    if (!(await categoryAcceptsPets(categories, input.categoryId))) throw unknownCategory(input.categoryId);
    const now = clock.now();
    const creating: PetRecord = {
      id: await ids.next("pets"),
      ...input,
      status: input.status ?? "available",
      revision: 1,
      stock: 0,
      holdCount: 0,
      heldUnits: 0,
      // A pet created pending is on a staff hold.
      pendingCause: input.status === "pending" ? "hold" : undefined,
      marks: [],
      fences: {},
      lifecycle: "creating",
      movingTo: undefined,
      provisionalSince: now,
    };
    await attempt?.note({ petId: creating.id });
    await pets.insert(creating);
    return await this.#finish(creating.id, input.categoryId, attempt);
  }

  async #finish(id: number, categoryId: number, attempt: IdempotentAttempt | undefined): Promise<Pet> {
    const { pets, categories } = this.#ports;
    if (!(await categoryAcceptsPets(categories, categoryId))) return await this.#undo(id, unknownCategory(categoryId));
    if (attempt && !(await attempt.confirm({ petId: id }))) return await this.#undo(id, lockLost());
    const created = await finishCreating(pets, id);
    if (!created)
      throw new DomainError(
        "service_unavailable",
        "The pet took too long to create and was undone; create it again",
        1,
      );
    return petOf(created);
  }

  async #undo(id: number, refusal: DomainError): Promise<Pet> {
    const { pets } = this.#ports;
    await pets.removeCreating(id);
    // Recovery, or the attempt that took over the key, may have finished it.
    const pet = await pets.ofId(id);
    if (isVisible(pet)) return petOf(pet);
    throw refusal;
  }
}

/** The visible pet, or undefined when it was removed instead. */
export const finishCreating = async (pets: Pets, id: number): Promise<WrittenPet | undefined> => {
  const result = await pets.finishCreating(id);
  if (result.applied) return result.pet;
  return isVisible(result.pet) ? result.pet : undefined;
};
