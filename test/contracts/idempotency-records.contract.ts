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

    it("lets the first claim of a key win and tells a second one that it is in progress", async () => {
      expect(await records().claim(aClaim())).toEqual({ outcome: "claimed" });
      expect(await records().claim(aClaim({ fingerprint: "sha256:b" }))).toEqual({ outcome: "in-progress", fingerprint: "sha256:a" });
    });

    it("lets exactly one of many racing claims win", async () => {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => records().claim(aClaim())));
      expect(outcomes.filter((o) => o.outcome === "claimed")).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === "in-progress")).toHaveLength(19);
    });

    it("replays a completed response, exactly as recorded", async () => {
      await records().claim(aClaim());
      await records().complete("key:1", "order-42", aResponse);
      expect(await records().claim(aClaim({ now: at("2026-11-22T11:59:59.000Z") }))).toEqual({
        outcome: "completed",
        fingerprint: "sha256:a",
        response: aResponse,
      });
    });

    it("scopes keys: the same key under another scope is a different record", async () => {
      await records().claim(aClaim());
      expect(await records().claim(aClaim({ scope: "key:2" }))).toEqual({ outcome: "claimed" });
    });

    it("frees a released key for the next claim", async () => {
      await records().claim(aClaim());
      await records().release("key:1", "order-42");
      expect(await records().claim(aClaim({ fingerprint: "sha256:b" }))).toEqual({ outcome: "claimed" });
    });

    it("lets a claim take over an unfinished record whose lease ran out, but not a completed one", async () => {
      await records().claim(aClaim({ key: "lost" }));
      await records().claim(aClaim({ key: "done" }));
      await records().complete("key:1", "done", aResponse);
      const later = { now: at("2026-11-21T12:05:00.000Z"), leaseUntil: at("2026-11-21T12:06:00.000Z") };

      expect(await records().claim(aClaim({ key: "lost", ...later }))).toEqual({ outcome: "claimed" });
      expect(await records().claim(aClaim({ key: "done", ...later }))).toMatchObject({ outcome: "completed" });
    });

    it("forgets a record once it expires", async () => {
      await records().claim(aClaim());
      await records().complete("key:1", "order-42", aResponse);
      const afterExpiry = aClaim({ fingerprint: "sha256:b", now: at("2026-11-22T12:00:00.000Z"), leaseUntil: at("2026-11-22T12:01:00.000Z"), expiresAt: at("2026-11-23T12:00:00.000Z") });
      expect(await records().claim(afterExpiry)).toEqual({ outcome: "claimed" });
      expect(await records().claim(afterExpiry)).toEqual({ outcome: "in-progress", fingerprint: "sha256:b" });
    });

    it("keeps keys with unusual characters apart", async () => {
      await records().claim(aClaim({ key: "a|b" }));
      expect(await records().claim(aClaim({ key: "a" }))).toEqual({ outcome: "claimed" });
      expect(await records().claim(aClaim({ key: "$where.x" }))).toEqual({ outcome: "claimed" });
    });
  });
};
