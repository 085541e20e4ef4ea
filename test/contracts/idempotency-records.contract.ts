import { describe, expect, it } from "vitest";
import type { IdempotencyClaim, RecordedResponse } from "../../core/idempotency/idempotency-records.port.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";

const at = (iso: string) => new Date(iso);
const aClaim = (overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
  scope: "key:1",
  key: "order-42",
  fingerprint: "sha256:a",
  now: at("2026-11-21T12:00:00.000Z"),
  leaseUntil: at("2026-11-21T12:01:00.000Z"),
  expiresAt: at("2026-11-22T12:00:00.000Z"),
  ...overrides,
});
const aResponse: RecordedResponse = {
  status: 201,
  body: '{"id":7,"name":"Dogs"}',
  headers: { "content-type": "application/json; charset=utf-8", location: "/categories/7" },
};

export const idempotencyRecordsContract = (harness: ContractHarness): void => {
  describe(`IdempotencyRecords contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const records = () => stores().idempotency;

    /** Claims and returns the token, failing loudly otherwise. */
    const take = async (claim: IdempotencyClaim = aClaim()): Promise<string> => {
      const outcome = await records().claim(claim);
      if (outcome.outcome !== "claimed")
        throw new Error(`expected to claim ${claim.key}, got ${JSON.stringify(outcome)}`);
      return outcome.token;
    };
    const lockExpired = { now: at("2026-11-21T12:01:00.000Z"), leaseUntil: at("2026-11-21T12:02:00.000Z") };

    it("lets the first claim of a key win and tells a second one that it is in progress, and until when", async () => {
      expect(await records().claim(aClaim())).toEqual({ outcome: "claimed", token: expect.any(String) });
      expect(await records().claim(aClaim({ fingerprint: "sha256:b", now: at("2026-11-21T12:00:30.000Z") }))).toEqual({
        outcome: "in-progress",
        fingerprint: "sha256:a",
        leaseUntil: at("2026-11-21T12:01:00.000Z"),
      });
    });

    describe("an attempt's note", () => {
      const later = { now: at("2026-11-21T12:02:00.000Z"), leaseUntil: at("2026-11-21T12:03:00.000Z") };
      const claimOf = async (claim: IdempotencyClaim) => {
        const outcome = await records().claim(claim);
        if (outcome.outcome !== "claimed") throw new Error(`expected to claim, got ${JSON.stringify(outcome)}`);
        return outcome;
      };

      it("is handed to the claim that takes over the lost attempt's record, and kept for the one after", async () => {
        const first = await take();
        expect(await records().note("key:1", "order-42", first, { orderId: 7 })).toBe(true);

        const second = await claimOf(aClaim(lockExpired));
        expect(second.previous).toEqual({ orderId: 7 });
        // The second attempt is lost too before it notes anything: the third still learns of order 7.
        expect((await claimOf(aClaim(later))).previous).toEqual({ orderId: 7 });
      });

      it("is replaced by a later note of the owner; a fresh claim has none", async () => {
        const first = await claimOf(aClaim());
        expect(first.previous).toBeUndefined();
        expect(await records().note("key:1", "order-42", first.token, { orderId: 7 })).toBe(true);
        expect(await records().note("key:1", "order-42", first.token, { orderId: 8 })).toBe(true);
        expect((await claimOf(aClaim(lockExpired))).previous).toEqual({ orderId: 8 });
      });

      it("is refused, nothing written, to a token that lost the record, and on a completed record", async () => {
        const first = await take();
        const second = await claimOf(aClaim(lockExpired));
        expect(await records().note("key:1", "order-42", first, { orderId: 7 })).toBe(false);
        expect(await records().note("key:1", "order-42", second.token, { orderId: 9 })).toBe(true);
        expect(await records().complete("key:1", "order-42", second.token, aResponse)).toBe(true);
        expect(await records().note("key:1", "order-42", second.token, { orderId: 10 })).toBe(false);
        expect(await records().claim(aClaim({ now: at("2026-11-21T12:05:00.000Z") }))).toMatchObject({
          outcome: "completed",
        });
      });

      it("survives a release: the retry of the same request takes the record over at once and learns it", async () => {
        const first = await take();
        expect(await records().note("key:1", "order-42", first, { petId: 7 })).toBe(true);
        await records().release("key:1", "order-42", first);

        const retry = await claimOf(
          aClaim({ now: at("2026-11-21T12:00:01.000Z"), leaseUntil: at("2026-11-21T12:01:01.000Z") }),
        );
        expect(retry.previous).toEqual({ petId: 7 });
        expect(await records().claim(aClaim({ now: at("2026-11-21T12:00:02.000Z") }))).toMatchObject({
          outcome: "in-progress",
        });
      });

      it("is not handed to another request (another fingerprint) that claims the record, nor to the one after it", async () => {
        const first = await take();
        expect(await records().note("key:1", "order-42", first, { categoryId: 7 })).toBe(true);
        await records().release("key:1", "order-42", first);
        const released = await claimOf(
          aClaim({
            fingerprint: "sha256:b",
            now: at("2026-11-21T12:00:01.000Z"),
            leaseUntil: at("2026-11-21T12:01:01.000Z"),
          }),
        );
        expect(released.previous).toBeUndefined();

        expect(await records().note("key:1", "order-42", released.token, { categoryId: 8 })).toBe(true);
        const lost = await claimOf(
          aClaim({ ...lockExpired, now: at("2026-11-21T12:01:02.000Z"), leaseUntil: at("2026-11-21T12:02:02.000Z") }),
        );
        expect(lost.previous).toBeUndefined();
        // The lost attempt of request b noted category 8; request a took it over, and is lost in turn before noting.
        expect(
          (await claimOf(aClaim({ now: at("2026-11-21T12:03:00.000Z"), leaseUntil: at("2026-11-21T12:04:00.000Z") })))
            .previous,
        ).toBeUndefined();
      });

      it("is forgotten with an expired record: the key claimed after expiry starts afresh", async () => {
        const first = await take();
        expect(await records().note("key:1", "order-42", first, { orderId: 7 })).toBe(true);
        const afterExpiry = aClaim({
          now: at("2026-11-22T12:00:01.000Z"),
          leaseUntil: at("2026-11-22T12:01:01.000Z"),
          expiresAt: at("2026-11-23T12:00:01.000Z"),
        });
        const fresh = await claimOf(afterExpiry);
        expect(fresh.previous).toBeUndefined();
        // Lost in turn without a note of its own: the next claim learns nothing of the expired record's order.
        expect(
          (
            await claimOf({
              ...afterExpiry,
              now: at("2026-11-22T12:02:00.000Z"),
              leaseUntil: at("2026-11-22T12:03:00.000Z"),
            })
          ).previous,
        ).toBeUndefined();
      });
    });

    it("lets exactly one of many racing claims win", async () => {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => records().claim(aClaim())));
      expect(outcomes.filter((o) => o.outcome === "claimed")).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === "in-progress")).toHaveLength(19);
    });

    it("replays a completed response, exactly as recorded", async () => {
      const token = await take();
      expect(await records().complete("key:1", "order-42", token, aResponse)).toBe(true);
      expect(await records().claim(aClaim({ now: at("2026-11-22T11:59:59.000Z") }))).toEqual({
        outcome: "completed",
        fingerprint: "sha256:a",
        response: aResponse,
      });
    });

    it("scopes keys: the same key under another scope is a different record", async () => {
      await take();
      expect(await records().claim(aClaim({ scope: "key:2" }))).toMatchObject({ outcome: "claimed" });
    });

    it("frees a released key for the next claim, with or without a note", async () => {
      await records().release("key:1", "order-42", await take());
      expect(await records().claim(aClaim({ fingerprint: "sha256:b" }))).toMatchObject({ outcome: "claimed" });
      const noted = await take(aClaim({ key: "noted" }));
      expect(await records().note("key:1", "noted", noted, { orderId: 3 })).toBe(true);
      await records().release("key:1", "noted", noted);
      expect(await records().claim(aClaim({ key: "noted" }))).toMatchObject({ outcome: "claimed" });
    });

    it("holds the lock until leaseUntil: a claim a millisecond before is in progress, one at leaseUntil takes over", async () => {
      await take();
      expect(await records().claim(aClaim({ now: at("2026-11-21T12:00:59.999Z") }))).toMatchObject({
        outcome: "in-progress",
      });
      expect(await records().claim(aClaim(lockExpired))).toMatchObject({ outcome: "claimed" });
    });

    it("lets a claim take over an unfinished record whose lease ran out, under a new token, but not a completed one", async () => {
      const lost = await take(aClaim({ key: "lost" }));
      await records().complete("key:1", "done", await take(aClaim({ key: "done" })), aResponse);

      const takeover = await records().claim(aClaim({ key: "lost", ...lockExpired }));
      expect(takeover).toEqual({ outcome: "claimed", token: expect.any(String) });
      expect(takeover.outcome === "claimed" && takeover.token).not.toBe(lost);
      expect(await records().claim(aClaim({ key: "done", ...lockExpired }))).toMatchObject({ outcome: "completed" });
    });

    it("hands an expired lock to exactly one of many racing retries", async () => {
      await take();
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => records().claim(aClaim(lockExpired))));
      expect(outcomes.filter((o) => o.outcome === "claimed")).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === "in-progress")).toEqual(
        Array(19).fill({ outcome: "in-progress", fingerprint: "sha256:a", leaseUntil: lockExpired.leaseUntil }),
      );
    });

    it("does not let the late finisher of an expired lock overwrite or free the new owner's record", async () => {
      const late = await take();
      const owner = await take(aClaim(lockExpired));

      expect(await records().complete("key:1", "order-42", late, { ...aResponse, body: '{"id":1}' })).toBe(false);
      await records().release("key:1", "order-42", late);
      expect(await records().claim(aClaim({ now: at("2026-11-21T12:01:30.000Z") }))).toMatchObject({
        outcome: "in-progress",
      });

      expect(await records().complete("key:1", "order-42", owner, aResponse)).toBe(true);
      expect(await records().complete("key:1", "order-42", late, { ...aResponse, body: '{"id":1}' })).toBe(false);
      await records().release("key:1", "order-42", late);
      expect(await records().claim(aClaim({ now: at("2026-11-21T12:05:00.000Z") }))).toEqual({
        outcome: "completed",
        fingerprint: "sha256:a",
        response: aResponse,
      });
    });

    it("records a response once: the owner cannot complete twice nor release what it completed", async () => {
      const token = await take();
      expect(await records().complete("key:1", "order-42", token, aResponse)).toBe(true);
      expect(await records().complete("key:1", "order-42", token, { ...aResponse, status: 409 })).toBe(false);
      await records().release("key:1", "order-42", token);
      expect(await records().claim(aClaim())).toEqual({
        outcome: "completed",
        fingerprint: "sha256:a",
        response: aResponse,
      });
    });

    it("forgets a record once it expires", async () => {
      await records().complete("key:1", "order-42", await take(), aResponse);
      const afterExpiry = aClaim({
        fingerprint: "sha256:b",
        now: at("2026-11-22T12:00:00.000Z"),
        leaseUntil: at("2026-11-22T12:01:00.000Z"),
        expiresAt: at("2026-11-23T12:00:00.000Z"),
      });
      expect(await records().claim(afterExpiry)).toMatchObject({ outcome: "claimed" });
      expect(await records().claim(afterExpiry)).toEqual({
        outcome: "in-progress",
        fingerprint: "sha256:b",
        leaseUntil: at("2026-11-22T12:01:00.000Z"),
      });
    });

    it("keeps keys with unusual characters apart", async () => {
      await take(aClaim({ key: "a|b" }));
      expect(await records().claim(aClaim({ key: "a" }))).toMatchObject({ outcome: "claimed" });
      expect(await records().claim(aClaim({ key: "$where.x" }))).toMatchObject({ outcome: "claimed" });
    });
  });
};
