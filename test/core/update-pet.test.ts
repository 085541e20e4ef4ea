import { describe, expect, it } from "vitest";
import { petStatuses, type PetStatus } from "../../core/pets/pet.ts";
import { UpdatePet } from "../../core/pets/update-pet.ts";
import { anyRevision, aWorld, givenCategory, givenPet, petIn, statusOf } from "./world.ts";

describe("UpdatePet", () => {
  /** PRODUCT.md §4: staff may keep a status, put a pet on hold, or release a hold — nothing else. */
  const allowed: [PetStatus, PetStatus][] = [
    ["available", "available"],
    ["pending", "pending"],
    ["sold", "sold"],
    ["available", "pending"],
    ["pending", "available"],
  ];
  const disallowed: [PetStatus, PetStatus][] = [
    ["available", "sold"],
    ["pending", "sold"],
    ["sold", "available"],
    ["sold", "pending"],
  ];

  it("the two tables below cover every pair of statuses", () => {
    const pairs = [...allowed, ...disallowed].map(([from, to]) => `${from}→${to}`);
    expect(new Set(pairs).size).toBe(petStatuses.length ** 2);
  });

  it.each(allowed)("lets staff edit a %s pet to %s", async (from, to) => {
    const world = aWorld();
    const pet = await givenPet(world, { status: from });

    const updated = await new UpdatePet(world).execute(pet.id, { name: "Max", categoryId: pet.categoryId, status: to });

    expect(updated).toEqual({ id: pet.id, name: "Max", categoryId: pet.categoryId, status: to, revision: anyRevision });
    expect(await petIn(world, pet.id)).toEqual(updated);
  });

  it.each(disallowed)("refuses to edit a %s pet to %s with invalid_transition", async (from, to) => {
    const world = aWorld();
    const pet = await givenPet(world, { status: from });

    const update = new UpdatePet(world).execute(pet.id, { name: "Max", categoryId: pet.categoryId, status: to });

    await expect(update).rejects.toMatchObject({ code: "invalid_transition" });
    expect(await petIn(world, pet.id)).toEqual(pet);
  });

  it("keeps the current status when the edit omits it", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { status: "pending" });
    const other = await givenCategory(world);

    const updated = await new UpdatePet(world).execute(pet.id, { name: "Max", categoryId: other.id });

    expect(updated).toEqual({
      id: pet.id,
      name: "Max",
      categoryId: other.id,
      status: "pending",
      revision: anyRevision,
    });
    expect(await statusOf(world, pet.id)).toBe("pending");
  });

  it("refuses an unknown category with unknown_category", async () => {
    const world = aWorld();
    const pet = await givenPet(world);

    await expect(new UpdatePet(world).execute(pet.id, { name: "Max", categoryId: 999 })).rejects.toMatchObject({
      code: "unknown_category",
    });
    expect(await petIn(world, pet.id)).toEqual({ ...pet, revision: anyRevision });
  });

  it("answers not_found for a missing pet", async () => {
    const world = aWorld();
    const category = await givenCategory(world);

    await expect(new UpdatePet(world).execute(42, { name: "Max", categoryId: category.id })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
