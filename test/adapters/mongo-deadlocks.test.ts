import { MongoServerError } from "mongodb";
import { describe, expect, it } from "vitest";
import { isDeadlockVictim, retryingDeadlocks } from "../../adapters/mongo/duplicate-key.ts";

/** What FerretDB v2 answered when PostgreSQL chose a concurrent insert as a deadlock's victim (seen in a contract test). */
const deadlock = () => new MongoServerError({ message: "deadlock detected", code: 16908292 });
const duplicate = () => new MongoServerError({ message: "E11000 duplicate key error", code: 11000 });

/** A write that fails with each of `failures` in turn, then answers "done"; counts its runs. */
const flaky = (failures: Error[]) => {
  let runs = 0;
  const write = async () => {
    const failure = failures[runs++];
    if (failure) throw failure;
    return "done";
  };
  return { write, runs: () => runs };
};

describe("writes aborted as a deadlock's victim", () => {
  it("are recognised by the engine's text, and nothing else is", () => {
    expect(isDeadlockVictim(deadlock())).toBe(true);
    expect(isDeadlockVictim(duplicate())).toBe(false);
    expect(isDeadlockVictim(new Error("deadlock detected"))).toBe(false);
  });

  it("run again, and the write's own answer comes back", async () => {
    const { write, runs } = flaky([deadlock(), deadlock()]);
    await expect(retryingDeadlocks(write)).resolves.toBe("done");
    expect(runs()).toBe(3);
  });

  it("give up after three runs with the deadlock itself", async () => {
    const { write, runs } = flaky([deadlock(), deadlock(), deadlock()]);
    await expect(retryingDeadlocks(write)).rejects.toThrow("deadlock detected");
    expect(runs()).toBe(3);
  });

  it("are the only failures run again: a duplicate key after a deadlock propagates at once", async () => {
    const { write, runs } = flaky([deadlock(), duplicate()]);
    await expect(retryingDeadlocks(write)).rejects.toMatchObject({ code: 11000 });
    expect(runs()).toBe(2);
  });
});
