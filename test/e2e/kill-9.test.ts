import { expect, it } from "vitest";
import { FAST_RECOVERY_ENV, killRound } from "../support/kill-round.ts";
import { describeMongo, mongoUrl } from "../support/mongo.ts";

/** The bound this test states: with recovery every 1 s and a 2 s grace, the invariants hold within 10 s of a restart. */
const RECOVERY_LIMIT_MS = 10_000;

/**
 * Issue 11, item 5: 50 clients placing and cancelling orders on three pets against a real service process on
 * MongoDB, SIGKILL at a random moment, a restart on the same database: no acknowledged order is lost, no cancelled
 * one comes back, and the invariants hold within RECOVERY_LIMIT_MS. `npm run chaos -- --rounds 20` runs more rounds.
 */
describeMongo("kill -9 during orders and cancellations", () => {
  it("keeps every invariant once the restarted service has recovered", { timeout: 90_000 }, async () => {
    const result = await killRound({
      mongoUrl: mongoUrl(),
      env: FAST_RECOVERY_ENV,
      recoveryLimitMs: RECOVERY_LIMIT_MS,
    });
    const summary = `killed after ${result.killedAfterMs} ms (${result.placed} orders placed, ${result.cancelled} cancelled, ${result.cutOff} requests cut off); restarted in ${result.startMs} ms; invariants ${result.recoveredMs === undefined ? `still broken after ${RECOVERY_LIMIT_MS} ms` : `held ${result.recoveredMs} ms after it listened`}; recovery logged ${JSON.stringify(result.recovered)}`;
    console.info(`kill -9: ${summary}`);
    expect(result.problems, `${summary}\n${result.output}`).toEqual([]);
    expect(result.recoveredMs).toBeLessThanOrEqual(RECOVERY_LIMIT_MS);
    // The kill must have hit a service under load, or the round proved nothing.
    expect(result.placed, summary).toBeGreaterThan(0);
    expect(result.cutOff, summary).toBeGreaterThan(0);
  });
});
