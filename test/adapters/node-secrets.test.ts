import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HASH_MEMO_MS, NodeSecrets } from "../../adapters/crypto/node-secrets.ts";

/** A NodeSecrets on a clock the test moves, counting the SHA-256s it really computes. */
const counted = () => {
  let now = 1_000_000;
  const computed: string[] = [];
  const secrets = new NodeSecrets(
    () => now,
    (secret) => {
      computed.push(secret);
      return hash("sha256", secret, "hex");
    },
  );
  return { secrets, computed, advance: (ms: number) => (now += ms) };
};

describe("NodeSecrets.hash", () => {
  it("is the SHA-256 of the secret in hex, remembered or not", () => {
    const secrets = new NodeSecrets();
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (secret) => {
        const expected = hash("sha256", secret, "hex");
        expect(secrets.hash(secret)).toBe(expected);
        expect(secrets.hash(secret)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it("computes a secret presented again within a second once", () => {
    const { secrets, computed, advance } = counted();
    secrets.hash("pk_a");
    for (let i = 0; i < 10; i++) {
      advance(HASH_MEMO_MS / 10 - 1);
      secrets.hash("pk_a");
    }
    expect(computed).toEqual(["pk_a"]);
  });

  it("keeps a secret in use across generations, and forgets one unused for two", () => {
    const { secrets, computed, advance } = counted();
    secrets.hash("pk_busy");
    secrets.hash("pk_once");
    for (let i = 0; i < 2; i++) {
      advance(HASH_MEMO_MS);
      secrets.hash("pk_busy");
    }
    expect(computed).toEqual(["pk_busy", "pk_once"]);
    secrets.hash("pk_once");
    expect(computed).toEqual(["pk_busy", "pk_once", "pk_once"]);
  });

  it("forgets everything after an idle second", () => {
    const { secrets, computed, advance } = counted();
    secrets.hash("pk_a");
    advance(2 * HASH_MEMO_MS);
    secrets.hash("pk_a");
    expect(computed).toEqual(["pk_a", "pk_a"]);
  });

  it("remembers a bounded number of secrets: a flood of made-up ones is computed every time", () => {
    const { secrets, computed } = counted();
    for (let i = 0; i < 1_000; i++) secrets.hash(`pk_${i}`);
    secrets.hash("pk_late");
    secrets.hash("pk_late");
    secrets.hash("pk_0");
    expect(computed.filter((s) => s === "pk_late")).toHaveLength(2);
    expect(computed.filter((s) => s === "pk_0")).toHaveLength(1);
  });
});
