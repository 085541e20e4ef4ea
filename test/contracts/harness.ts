import { beforeEach } from "vitest";
import type { Stores } from "../../core/stores.ts";

/** What an adapter family supplies to run the shared contracts. */
export interface ContractHarness {
  name: string;
  /** empty stores for one test */
  fresh(): Promise<Stores>;
  /** A second instance on the same data as the last `fresh()` (another process on the same database), if any. */
  sibling?(): Stores;
  /**
   * Runs the family's start-up code (migrations) on the data of the last `fresh()`, as an instance starting beside
   * work left half done would; none when the family has no start-up code.
   */
  restart?(): Promise<void>;
  /** after all tests of the file */
  close?(): Promise<void>;
}

/**
 * Gives every test of the enclosing `describe` empty stores from the harness. Contracts never call
 * `Stores.close()`: releasing what `fresh()` made is the harness's job.
 */
export const freshStoresPerTest = (harness: ContractHarness): (() => Stores) => {
  let stores: Stores | undefined;
  beforeEach(async () => {
    stores = await harness.fresh();
  });
  return () => {
    if (!stores) throw new Error("Stores are only available inside a test");
    return stores;
  };
};
