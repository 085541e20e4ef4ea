import { randomUUID } from "node:crypto";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import type { Actor } from "../../core/access/permissions.ts";
import { CreateCategory } from "../../core/categories/create-category.ts";
import type { Order } from "../../core/orders/order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { CreatePet } from "../../core/pets/create-pet.ts";
import type { Pet, PetStatus } from "../../core/pets/pet.ts";
import type { Stores } from "../../core/stores.ts";
import { isVisibleOrder, orderOf } from "../../core/orders/order-record.ts";
import { isVisible, petOf } from "../../core/pets/pet-record.ts";
import { MAX_STOCK } from "../../core/pets/stock-writes.ts";
import { expect } from "vitest";
import { stockCases } from "../../core/pets/stock-rule.ts";
import { ManualClock } from "../support/manual-clock.ts";

/** The ports every use case takes, backed by memory stores and a clock that moves only when told. */
export type World = Stores & { clock: ManualClock };

export const aWorld = (): World => ({ ...createMemoryStores(), clock: new ManualClock("2026-11-21T12:00:00.000Z") });

export const staff: Actor = { keyId: 1, role: "staff" };
export const alice: Actor = { keyId: 2, role: "customer" };
export const bob: Actor = { keyId: 3, role: "customer" };

/** A new category, with a name of its own unless told otherwise. */
export const givenCategory = (world: World, name = `Category ${randomUUID()}`) =>
  new CreateCategory(world).execute({ name });

/** A pet in a category of its own, with `stock` units and the given status. */
export const givenPet = async (world: World, { stock = 0, status = "available" as PetStatus } = {}): Promise<Pet> => {
  const category = await givenCategory(world);
  const pet = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id, status });
  const stocked = await world.pets.setStock({
    petId: pet.id,
    quantity: stock,
    heldAtMost: MAX_STOCK - stock,
    cases: stockCases.setStock(stock, { events: [] }),
  });
  return stocked.pet ? petOf(stocked.pet) : pet;
};

export const givenOrder = (world: World, petId: number, quantity = 1, by: Actor = alice): Promise<Order> =>
  new PlaceOrder(world).execute({ petId, quantity }, by);

export const statusOf = async (world: World, petId: number): Promise<PetStatus | undefined> =>
  (await world.pets.ofId(petId))?.status;

export const stockOf = async (world: World, petId: number): Promise<number | undefined> =>
  (await world.pets.ofId(petId))?.stock;

/** The order as a client would see it, or undefined when it is not visible. */
export const orderIn = async (world: World, id: number) => {
  const order = await world.orders.ofId(id);
  return isVisibleOrder(order) ? orderOf(order) : undefined;
};

/** The pet as a client would see it, or undefined when it is not visible. */
export const petIn = async (world: World, id: number) => {
  const pet = await world.pets.ofId(id);
  return isVisible(pet) ? petOf(pet) : undefined;
};

export const anyRevision: unknown = expect.any(Number);
