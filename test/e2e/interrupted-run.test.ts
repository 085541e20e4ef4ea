/**
 * Ctrl-C on `npm test` leaves no container behind: a vitest run (the shared engine of its global set-up, and a
 * dedicated engine a test started) is sent SIGINT while its test waits; afterwards no container of that run exists.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { expect, it } from "vitest";
import { describeMongo } from "../support/mongo.ts";
import { removeRunContainers, runContainers } from "../support/test-run-containers.ts";

describeMongo("an interrupted test run", () => {
  it("removes the containers it started (shared and dedicated) when it gets SIGINT", async () => {
    const runId = randomUUID();
    const { MONGODB_URL: _external, ...env } = process.env;
    const run = spawn(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "--config", "test/support/interrupted-run/vitest.config.ts"],
      { env: { ...env, PETSTORE_TEST_RUN_ID: runId, CI: "true" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    const started = new Promise<void>((resolve, reject) => {
      const look = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("ENGINES STARTED")) resolve();
      };
      run.stdout.on("data", look);
      run.stderr.on("data", look);
      run.once("exit", () => reject(new Error(`the run ended before its engines started:\n${output.slice(-2_000)}`)));
    });
    try {
      await started;
      expect(runContainers(runId)).toHaveLength(2);

      const exited = once(run, "exit");
      run.kill("SIGINT");
      await exited;

      expect(runContainers(runId)).toEqual([]);
    } finally {
      run.kill("SIGKILL");
      removeRunContainers(runId);
    }
  }, 300_000);
});
