import { MongoBulkWriteError, MongoServerError, type WriteError } from "mongodb";
import { describe, expect, it } from "vitest";
import {
  DEADLOCK_RETRY,
  isBulkDeadlockVictim,
  isDeadlockVictim,
  retryingDeadlocks,
} from "../../adapters/mongo/duplicate-key.ts";
import { DomainError } from "../../core/shared/domain-error.ts";

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

  it("in an unordered bulk write: only when it failed with write errors and every one was a deadlock's victim", () => {
    const bulk = (messages: string[]) =>
      new MongoBulkWriteError(
        {
          message: messages.join("; "),
          code: messages.length > 0 ? 16908292 : 64,
          writeErrors: messages.map((errmsg, index) => ({ index, code: 16908292, errmsg })) as unknown as WriteError[],
        },
        { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 } as never,
      );
    expect(isBulkDeadlockVictim(bulk(["deadlock detected", "deadlock detected"]))).toBe(true);
    expect(isBulkDeadlockVictim(bulk(["deadlock detected", "E11000 duplicate key error"]))).toBe(false);
    expect(isBulkDeadlockVictim(bulk([])), "a write concern error alone").toBe(false);
    expect(isBulkDeadlockVictim(deadlock())).toBe(true);
    expect(isBulkDeadlockVictim(duplicate())).toBe(false);
  });

  it("run again, and the write's own answer comes back", async () => {
    const { write, runs } = flaky([deadlock(), deadlock()]);
    await expect(retryingDeadlocks(write)).resolves.toBe("done");
    expect(runs()).toBe(3);
  });

  it("give up after the last run as service_unavailable (503, retry in a second), not as an internal error", async () => {
    const { write, runs } = flaky([deadlock(), deadlock(), deadlock()]);
    const failure = retryingDeadlocks(write, { attempts: 3, baseDelayMs: 1 });
    await expect(failure).rejects.toBeInstanceOf(DomainError);
    await expect(failure).rejects.toMatchObject({ code: "service_unavailable", retryAfterSeconds: 1 });
    expect(runs()).toBe(3);
  });

  it("by default run up to eight times, so that a cycle re-formed by racing attempts has time to clear", async () => {
    const { write, runs } = flaky(Array.from({ length: 7 }, deadlock));
    await expect(retryingDeadlocks(write, { ...DEADLOCK_RETRY, baseDelayMs: 1 })).resolves.toBe("done");
    expect(runs()).toBe(8);
    expect(DEADLOCK_RETRY.attempts).toBe(8);
  });

  it("are the only failures run again: a duplicate key after a deadlock propagates at once", async () => {
    const { write, runs } = flaky([deadlock(), duplicate()]);
    await expect(retryingDeadlocks(write)).rejects.toMatchObject({ code: 11000 });
    expect(runs()).toBe(2);
  });
});
