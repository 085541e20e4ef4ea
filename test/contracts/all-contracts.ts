import { afterAll } from "vitest";
import { adminGuardContract } from "./admin-guard.contract.ts";
import { apiKeysContract } from "./api-keys.contract.ts";
import { categoriesContract } from "./categories.contract.ts";
import type { ContractHarness } from "./harness.ts";
import { eventLogContract } from "./event-log.contract.ts";
import { faultsContract } from "./faults.contract.ts";
import { idAllocatorContract } from "./id-allocator.contract.ts";
import { idempotencyRecordsContract } from "./idempotency-records.contract.ts";
import { ordersContract } from "./orders.contract.ts";
import { outboxContract } from "./outbox.contract.ts";
import { petNameOrderContract } from "./pet-name-order.contract.ts";
import { petEditsAndMovesContract } from "./pets-edits-and-moves.contract.ts";
import { petsReadsContract } from "./pets-reads.contract.ts";
import { petStockContract } from "./pets-stock.contract.ts";
import { petWriteFactsContract } from "./pets-write-facts.contract.ts";
import { rateLimiterContract } from "./rate-limiter.contract.ts";
import { storeHealthContract } from "./store-health.contract.ts";
import { stockRuleContract } from "./stock-rule.contract.ts";
import { webhooksContract } from "./webhooks.contract.ts";

/** Every port's contract against one adapter family; the harness is closed after the last of them. */
export const runAllContracts = (harness: ContractHarness): void => {
  petsReadsContract(harness);
  petWriteFactsContract(harness);
  petStockContract(harness);
  petEditsAndMovesContract(harness);
  petNameOrderContract(harness);
  stockRuleContract(harness);
  categoriesContract(harness);
  ordersContract(harness);
  outboxContract(harness);
  eventLogContract(harness);
  faultsContract(harness);
  idAllocatorContract(harness);
  apiKeysContract(harness);
  adminGuardContract(harness);
  rateLimiterContract(harness);
  storeHealthContract(harness);
  idempotencyRecordsContract(harness);
  webhooksContract(harness);
  afterAll(async () => {
    await harness.close?.();
  });
};
