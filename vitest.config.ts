import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Every TestClient response is checked against the OpenAPI documents (test/support/openapi-drift.ts).
    setupFiles: ["test/support/openapi-drift-setup.ts"],
    // One MongoDB-compatible server per run (testcontainers), or MONGODB_URL; see test/support/mongo-global-setup.ts.
    globalSetup: ["test/support/mongo-global-setup.ts"],
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});
