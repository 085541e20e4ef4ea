import { describe, expect, it } from "vitest";
import { CreateCategory } from "../../core/categories/create-category.ts";
import type { AttemptNote } from "../../core/idempotency/idempotency-records.port.ts";
import type { IdempotentAttempt } from "../../core/idempotency/run-idempotently.ts";
import { aWorld, givenCategory } from "./world.ts";

/** An attempt that took over a lost one's record noting `previous`; what it notes itself is kept in `notes`. */
const takeover = (previous: AttemptNote | undefined) => {
  const notes: AttemptNote[] = [];
  const attempt: IdempotentAttempt = {
    previous,
    note: async (note) => void notes.push(note),
    confirm: async (note) => notes.push(note) > 0,
  };
  return { attempt, notes };
};

describe("CreateCategory under an Idempotency-Key that took over a lost attempt", () => {
  it("answers the category under the noted id and writes nothing", async () => {
    const world = aWorld();
    const lost = await givenCategory(world, "Ferrets");
    const { attempt, notes } = takeover({ categoryId: lost.id });

    expect(await new CreateCategory(world).execute({ name: "Ferrets" }, attempt)).toEqual(lost);
    expect(notes).toEqual([]);
    expect(await world.categories.list({ limit: 100 })).toHaveLength(1);
  });

  it("does not answer a noted category that is being deleted: it creates afresh, and the name decides", async () => {
    const world = aWorld();
    const lost = await givenCategory(world, "Ferrets");
    await world.categories.beginDelete(lost.id, world.clock.now());
    const { attempt, notes } = takeover({ categoryId: lost.id });

    await expect(new CreateCategory(world).execute({ name: "Ferrets" }, attempt)).rejects.toMatchObject({
      code: "category_name_taken",
    });
    expect(notes).toHaveLength(1);
    expect(notes[0]).not.toEqual({ categoryId: lost.id });
  });

  it("ignores a note of another kind (an order id), notes its own id and creates the category", async () => {
    const world = aWorld();
    const other = await givenCategory(world, "Cats");
    const { attempt, notes } = takeover({ orderId: other.id });

    const made = await new CreateCategory(world).execute({ name: "Ferrets" }, attempt);
    expect(made.name).toBe("Ferrets");
    expect(notes).toEqual([{ categoryId: made.id }]);
  });
});
