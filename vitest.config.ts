import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Every TestClient response is checked against the OpenAPI documents (test/support/openapi-drift.ts).
    setupFiles: ["test/support/openapi-drift-setup.ts"],
    // One MongoDB-compatible server per run (testcontainers), or MONGODB_URL; see test/support/mongo-global-setup.ts.
    // Declared here, at the root, it runs once for both projects and both see its server.
    globalSetup: ["test/support/mongo-global-setup.ts"],
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    testTimeout: 20_000,
    hookTimeout: 120_000,
    projects: [
      // Every suite, as configured above (memory stores unless a test brings others). Each project names its own
      // `include`: an inherited one would be merged with it, not replaced.
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"] } },
      // The @petstore/client package's own unit tests: fakes only, no petstore, so none of the setup above.
      { test: { name: "client", include: ["clients/typescript/test/**/*.test.ts"], testTimeout: 20_000 } },
      // The HTTP suites once more, each petstore on MongoDB stores of its own (test/support/test-petstore.ts).
      {
        extends: true,
        test: {
          name: "http-on-mongo",
          include: ["test/http/**/*.test.ts"],
          // Property tests probe the HTTP edge (parsing, validation, headers), the same on any store, with many runs.
          exclude: ["**/*.property.test.ts"],
          env: { PETSTORE_TEST_STORE: "mongo" },
          setupFiles: ["test/support/http-on-mongo-setup.ts"],
        },
      },
    ],
  },
});
