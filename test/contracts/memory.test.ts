import { expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { runAllContracts } from "./all-contracts.ts";

runAllContracts({ name: "memory", fresh: async () => createMemoryStores() });

it("memory stores close cleanly", async () => {
  await expect(createMemoryStores().close()).resolves.toBeUndefined();
});
