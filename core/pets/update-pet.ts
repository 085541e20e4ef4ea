import type { Categories } from "../categories/categories.port.ts";
import { stampEvent } from "../events/event-stamp.ts";
import type { Clock } from "../shared/clock.port.ts";
import { notFound, revisionMismatch } from "../shared/domain-error.ts";
import { categoryAcceptsPets } from "./category-check.ts";
import { unknownCategory } from "./create-pet.ts";
import type { NewPet, Pet, PetStatus } from "./pet.ts";
import { isVisible, petOf, type ListedPet, type WrittenPet } from "./pet-record.ts";
import { assertStaffMayChangeStatus } from "./pet-status-transitions.ts";
import type { Pets, StatusChange } from "./pets.port.ts";

interface Ports {
  pets: Pets;
  categories: Categories;
  clock: Clock;
}

// Crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("move pet", "edit pet").
export class UpdatePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, input: NewPet, expectedRevision?: number): Promise<Pet> {
    for (;;) {
      const current = await this.#ports.pets.ofId(id);
      if (!isVisible(current)) throw notFound("Pet", id);
      if (expectedRevision !== undefined && current.revision !== expectedRevision) throw revisionMismatch("Pet", id);
      assertStaffMayChangeStatus(current.status, input.status ?? current.status);
      const updated =
        input.categoryId === current.categoryId
          ? await this.#edit(current, input, expectedRevision)
          : await this.#move(current, input, expectedRevision);
      if (updated) return petOf(updated);
      if (expectedRevision !== undefined) throw revisionMismatch("Pet", id);
    }
  }

  async #edit(
    current: ListedPet,
    input: NewPet,
    expectedRevision: number | undefined,
  ): Promise<WrittenPet | undefined> {
    // At the revision read when no If-Match gave one: a copy of this write landing later is refused.
    const result = await this.#ports.pets.edit({
      petId: current.id,
      expectedRevision: expectedRevision ?? current.revision,
      ...this.#changes(current, input),
    });
    return result.applied ? result.pet : undefined;
  }

  async #move(
    current: ListedPet,
    input: NewPet,
    expectedRevision: number | undefined,
  ): Promise<WrittenPet | undefined> {
    const { pets, categories, clock } = this.#ports;
    const { id } = current;
    const target = input.categoryId;
    // Refuses early, writing nothing; the check after beginMove decides.
    if (!(await categoryAcceptsPets(categories, target))) throw unknownCategory(target);
    const since = clock.now();
    const begun = await pets.beginMove({
      petId: id,
      to: target,
      since,
      expectedRevision: expectedRevision ?? current.revision,
    });
    if (!begun.applied) return undefined;
    const ours = { petId: id, to: target, since } as const;
    if (!(await categoryAcceptsPets(categories, target))) {
      await pets.undoMove(ours);
      throw unknownCategory(target);
    }
    let pet = begun.pet;
    for (;;) {
      try {
        assertStaffMayChangeStatus(pet.status, input.status ?? pet.status);
      } catch (error) {
        await pets.undoMove(ours);
        throw error;
      }
      const finished = await pets.finishMove({ ...ours, ...this.#changes(pet, input) });
      if (finished.applied) return finished.pet;
      // Undone by recovery, or replaced by another move: start over.
      if (!isVisible(finished.pet) || finished.pet.movingTo !== target) return undefined;
      pet = finished.pet;
    }
  }

  /** Staff setting pending is a hold, even on a sold-out pet; leaving pending ends either cause. */
  #changes(current: ListedPet, input: NewPet) {
    const { categoryId: _categoryId, status: _status, ...fields } = input;
    const status: PetStatus = input.status ?? current.status;
    const events =
      status === current.status
        ? []
        : [
            stampEvent(this.#ports.clock.now(), "pet.status_changed", {
              petId: current.id,
              from: current.status,
              to: status,
            }),
          ];
    const change: StatusChange | undefined =
      input.status === "pending"
        ? { to: "pending", cause: "hold" }
        : status === "pending"
          ? undefined
          : { to: status, cause: undefined };
    return { fields, checkedStatus: current.status, status: change, events };
  }
}
