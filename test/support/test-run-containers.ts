import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";

/** Every container a test run starts carries this label with the run's id, so an interrupted run's can be found. */
export const RUN_LABEL = "petstore.test.run";

/**
 * The run's id: made once by the global set-up (test/support/mongo-global-setup.ts), in the main process, before
 * any worker starts; workers inherit it through the environment.
 */
export const testRunId = (): string => (process.env.PETSTORE_TEST_RUN_ID ??= randomUUID());

/** The labels of a container this run starts: the shared one's, a dedicated one's. */
export const runLabels = (role: string): Record<string, string> => ({
  "petstore.test": role,
  [RUN_LABEL]: testRunId(),
});

/** The run's containers, running or not (the docker command line; none when it is missing). */
export const runContainers = (runId: string): string[] => {
  const listed = spawnSync("docker", ["ps", "-aq", "--filter", `label=${RUN_LABEL}=${runId}`], {
    encoding: "utf8",
    timeout: 10_000,
  });
  return (listed.stdout ?? "").split("\n").filter(Boolean);
};

/**
 * Removes the run's containers, synchronously: it runs as the main process exits, which after Ctrl-C (vitest's
 * SIGINT handler) is before any teardown or afterAll could stop them.
 */
export const removeRunContainers = (runId: string): void => {
  const ids = runContainers(runId);
  if (ids.length > 0) spawnSync("docker", ["rm", "-f", ...ids], { stdio: "ignore", timeout: 30_000 });
};
