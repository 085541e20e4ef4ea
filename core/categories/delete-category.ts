import type { Pets } from "../pets/pets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError, notFound, revisionMismatch } from "../shared/domain-error.ts";
import type { Categories } from "./categories.port.ts";

interface Ports {
  categories: Categories;
  pets: Pets;
  clock: Clock;
}

// Crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("delete category").
export class DeleteCategory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, expectedRevision?: number): Promise<void> {
    const { categories, pets, clock } = this.#ports;
    // Refuses early, writing nothing; the check after beginDelete decides.
    if ((await categories.ofId(id)) && (await pets.anyNaming(id))) throw inUse(id);
    const since = clock.now();
    if (!(await categories.beginDelete(id, since, expectedRevision))) {
      const current = await categories.ofId(id);
      if (!current) throw notFound("Category", id);
      if (expectedRevision !== undefined && current.revision !== expectedRevision)
        throw revisionMismatch("Category", id);
      if (current.deletingSince === undefined)
        throw new DomainError("service_unavailable", `Category ${id} changed meanwhile; try again`, 1);
      // Another deletion is under way: decide it (deciding is idempotent).
      if (!(await decideCategoryDeletion(this.#ports, id, current.deletingSince))) throw inUse(id);
      return;
    }
    if (!(await decideCategoryDeletion(this.#ports, id, since))) throw inUse(id);
  }
}

const inUse = (id: number): DomainError =>
  new DomainError("category_in_use", `Category ${id} still has pets; move or delete them first`);

/** Steps 2–3: true when the category is gone. */
export const decideCategoryDeletion = async (
  { categories, pets }: { categories: Categories; pets: Pets },
  id: number,
  since: Date,
): Promise<boolean> => {
  if (await pets.anyNaming(id)) {
    await categories.abortDelete(id, since);
    return false;
  }
  await categories.removeDeleting(id, since);
  return true;
};
