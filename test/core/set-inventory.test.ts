import { describe, expect, it } from "vitest";
import { SetInventory } from "../../core/inventory/set-inventory.ts";
import { anyRevision, aWorld, givenPet, statusOf, stockOf } from "./world.ts";

describe("SetInventory", () => {
  it("makes a sold pet available again when restocked above 0", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { status: "sold" });

    expect(await new SetInventory(world).execute(pet.id, 3)).toEqual({
      petId: pet.id,
      quantity: 3,
      status: "available",
      revision: anyRevision,
    });
    expect(await statusOf(world, pet.id)).toBe("available");
    expect(await stockOf(world, pet.id)).toBe(3);
  });

  it("leaves a sold pet sold when the stock stays 0", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { status: "sold" });

    expect(await new SetInventory(world).execute(pet.id, 0)).toEqual({
      petId: pet.id,
      quantity: 0,
      status: "sold",
      revision: anyRevision,
    });
    expect(await statusOf(world, pet.id)).toBe("sold");
  });

  it("does not release a pending pet: only a cancellation or staff does", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { status: "pending" });

    expect(await new SetInventory(world).execute(pet.id, 4)).toEqual({
      petId: pet.id,
      quantity: 4,
      status: "pending",
      revision: anyRevision,
    });
    expect(await statusOf(world, pet.id)).toBe("pending");
  });

  it("answers not_found for a missing pet", async () => {
    await expect(new SetInventory(aWorld()).execute(6, 1)).rejects.toMatchObject({ code: "not_found" });
  });
});
