import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NodeSecrets } from "../../adapters/crypto/node-secrets.ts";

describe("NodeSecrets", () => {
  it("hashes a secret to its SHA-256 in hex, the same every time", () => {
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

  it("generates distinct 32-byte keys with the pk_ prefix", () => {
    const secrets = new NodeSecrets();
    const keys = new Set(Array.from({ length: 100 }, () => secrets.generate()));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(Buffer.from(key.slice(3), "base64url")).toHaveLength(32);
  });
});
