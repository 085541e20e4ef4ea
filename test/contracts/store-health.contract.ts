import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";

export const storeHealthContract = (harness: ContractHarness): void => {
  describe(`StoreHealth contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);

    it("resolves a ping while the store answers", async () => {
      await expect(stores().health.ping()).resolves.toBeUndefined();
    });
  });
};
