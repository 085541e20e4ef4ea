import { describe, expect, it } from "vitest";
import { aPet } from "../contracts/mothers.ts";
import { GetInventoryItem } from "../../core/inventory/get-inventory-item.ts";
import { CreatePet } from "../../core/pets/create-pet.ts";
import type { AttemptNote } from "../../core/idempotency/idempotency-records.port.ts";
import type { IdempotentAttempt } from "../../core/idempotency/run-idempotently.ts";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import { anyRevision, aWorld, givenCategory, petIn, type World } from "./world.ts";

describe("CreatePet", () => {
  it("creates an available pet with increasing ids", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    const create = new CreatePet(world);

    const rex = await create.execute({ name: "Rex", categoryId: category.id });
    const max = await create.execute({ name: "Max", categoryId: category.id, status: "pending" });

    expect(rex).toEqual({ id: 1, name: "Rex", categoryId: category.id, status: "available", revision: anyRevision });
    expect(max).toEqual({ id: 2, name: "Max", categoryId: category.id, status: "pending", revision: anyRevision });
    expect(await petIn(world, 1)).toEqual(rex);
  });

  it("starts the pet with an inventory of 0", async () => {
    const world = aWorld();
    const category = await givenCategory(world);

    const pet = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id });

    expect(await new GetInventoryItem(world.pets).execute(pet.id)).toMatchObject({
      petId: pet.id,
      quantity: 0,
      status: "available",
      revision: anyRevision,
    });
  });

  it("refuses an unknown category with unknown_category and stores nothing", async () => {
    const world = aWorld();

    await expect(new CreatePet(world).execute({ name: "Rex", categoryId: 7 })).rejects.toMatchObject({
      code: "unknown_category",
    });
    expect(await world.pets.list({ limit: 100 })).toEqual([]);
  });
});

/** An attempt under an Idempotency-Key that took over `previous`; `owns` says whether it still holds the key. */
const keyed = (previous: AttemptNote | undefined, owns = true) => {
  const notes: AttemptNote[] = [];
  const attempt: IdempotentAttempt = {
    previous,
    note: async (note) => void notes.push(note),
    confirm: async (note) => (notes.push(note), owns),
  };
  return { attempt, notes };
};

describe("CreatePet under an Idempotency-Key", () => {
  const creating = (world: World, id: number, categoryId: number): PetRecord =>
    aPet({ id, name: "Rex", categoryId, lifecycle: "creating", provisionalSince: world.clock.now() });

  it("notes the pet's id before inserting it and confirms the key before making it visible", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    const { attempt, notes } = keyed(undefined);

    const rex = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id }, attempt);
    expect(notes).toEqual([{ petId: rex.id }, { petId: rex.id }]);
    expect(await petIn(world, rex.id)).toEqual(rex);
  });

  it("answers the visible pet under the noted id and writes nothing", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    const lost = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id });
    const { attempt, notes } = keyed({ petId: lost.id });

    expect(await new CreatePet(world).execute({ name: "Rex", categoryId: category.id }, attempt)).toEqual(lost);
    expect(notes).toEqual([]);
    expect(await world.pets.list({ limit: 100 })).toHaveLength(1);
  });

  it("finishes the noted pet still being created instead of creating another", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    await world.pets.insert(creating(world, 41, category.id));
    const { attempt, notes } = keyed({ petId: 41 });

    const rex = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id }, attempt);
    expect(rex.id).toBe(41);
    expect(notes).toEqual([{ petId: 41 }]);
    expect(await world.pets.list({ limit: 100 })).toEqual([expect.objectContaining({ id: 41 })]);
  });

  it("creates afresh when the noted pet is gone or being deleted", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    const deleting = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id });
    await world.pets.beginDeleting({ petId: deleting.id, since: world.clock.now() });

    for (const previous of [{ petId: deleting.id }, { petId: 99 }, { orderId: deleting.id }]) {
      const { attempt } = keyed(previous);
      const rex = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id }, attempt);
      expect(rex.id).not.toBe(deleting.id);
    }
  });

  it("undoes its still-creating pet and answers service_unavailable once another attempt has taken its key over", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    const { attempt } = keyed(undefined, false);

    await expect(new CreatePet(world).execute({ name: "Rex", categoryId: category.id }, attempt)).rejects.toMatchObject(
      { code: "service_unavailable" },
    );
    expect(await world.pets.provisional({ limit: 100 })).toEqual([]);
    expect(await world.pets.list({ limit: 100 })).toEqual([]);
  });
});
