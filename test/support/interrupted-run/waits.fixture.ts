import { inject, it } from "vitest";
import { startDedicatedFerretDb } from "../dedicated-ferretdb.ts";

// Starts a dedicated engine beside the run's shared one, says so, and waits to be interrupted.
it("waits for Ctrl-C with two engines running", async () => {
  await startDedicatedFerretDb(inject("mongoUnavailable"));
  process.stdout.write("\nENGINES STARTED\n");
  await new Promise(() => undefined);
});
