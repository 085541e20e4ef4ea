import { defineConfig } from "vitest/config";

/** A run that is interrupted on purpose (test/e2e/interrupted-run.test.ts): the shared engine, one test that waits. */
export default defineConfig({
  test: {
    globalSetup: ["test/support/mongo-global-setup.ts"],
    include: ["test/support/interrupted-run/*.fixture.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
