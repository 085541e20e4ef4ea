import { describe, expect, it } from "vitest";
import { GetInventoryItem } from "../../core/inventory/get-inventory-item.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import { aWorld, givenOrder, givenPet, staff } from "./world.ts";

describe("DeletePet", () => {
  it("deletes the pet and its inventory", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });

    await new DeletePet(world).execute(pet.id);

    expect(await world.pets.ofId(pet.id)).toBeUndefined();
    expect(await world.inventory.quantityOf(pet.id)).toBeUndefined();
    await expect(new GetInventoryItem(world).execute(pet.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses a pet with open orders with pet_has_open_orders", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    await givenOrder(world, pet.id);

    await expect(new DeletePet(world).execute(pet.id)).rejects.toMatchObject({ code: "pet_has_open_orders" });
    expect(await world.pets.ofId(pet.id)).toEqual(pet);
    expect(await world.inventory.quantityOf(pet.id)).toBe(4);
  });

  it("deletes a pet whose orders are all complete", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id);
    await new UpdateOrder(world).execute(order.id, { complete: true }, staff);

    await new DeletePet(world).execute(pet.id);

    expect(await world.pets.ofId(pet.id)).toBeUndefined();
  });

  it("answers not_found for a missing pet", async () => {
    await expect(new DeletePet(aWorld()).execute(3)).rejects.toMatchObject({ code: "not_found" });
  });
});
