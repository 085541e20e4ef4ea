import type { UseCases } from "../adapters/http/use-cases.ts";
import type { Stores } from "../core/stores.ts";

const catalog: Array<{ category: string; description: string; pets: Array<[name: string, stock: number]> }> = [
  {
    category: "Dogs",
    description: "Loyal companions",
    pets: [
      ["Rex", 3],
      ["Bella", 1],
      ["Max", 0],
    ],
  },
  {
    category: "Cats",
    description: "Independent spirits",
    pets: [
      ["Luna", 2],
      ["Milo", 5],
    ],
  },
  {
    category: "Birds",
    description: "Feathered friends",
    pets: [
      ["Kiwi", 10],
      ["Sunny", 4],
    ],
  },
  { category: "Fish", description: "Quiet swimmers", pets: [["Nemo", 25]] },
];

/** Demo categories, pets and stock, loaded through the use cases like any client would. Nothing secret. */
export const seedDemoData = async (useCases: UseCases, stores: Stores): Promise<boolean> => {
  if ((await stores.categories.list({ limit: 1 })).length > 0) return false; // never on top of real data
  for (const entry of catalog) {
    const category = await useCases.createCategory.execute({ name: entry.category, description: entry.description });
    for (const [name, stock] of entry.pets) {
      const pet = await useCases.createPet.execute({ name, categoryId: category.id });
      if (stock > 0) await useCases.setInventory.execute(pet.id, stock);
    }
  }
  return true;
};
