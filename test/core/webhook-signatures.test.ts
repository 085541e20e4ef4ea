import { describe, expect, it } from "vitest";
import { HmacWebhookSigner } from "../../adapters/crypto/hmac-webhook-signer.ts";
import { verifyStandardWebhook } from "../support/webhook-verifier.ts";

// The published Standard Webhooks test vector (the specification's reference libraries all reproduce it).
const vector = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

describe("webhook signatures", () => {
  const signer = new HmacWebhookSigner();

  it("reproduce the specification's test vector", () => {
    expect(signer.signature(vector.secret, vector.id, vector.timestamp, vector.body)).toBe(vector.signature);
  });

  it("the test verifier accepts the vector and refuses a changed body, id, stale timestamp or another secret", () => {
    const headers = {
      "webhook-id": vector.id,
      "webhook-timestamp": String(vector.timestamp),
      "webhook-signature": vector.signature,
    };
    expect(verifyStandardWebhook(vector.secret, headers, vector.body, vector.timestamp)).toBe(true);
    expect(verifyStandardWebhook(vector.secret, headers, `${vector.body} `, vector.timestamp)).toBe(false);
    expect(
      verifyStandardWebhook(vector.secret, { ...headers, "webhook-id": "msg_other" }, vector.body, vector.timestamp),
    ).toBe(false);
    expect(verifyStandardWebhook(vector.secret, headers, vector.body, vector.timestamp + 301)).toBe(false);
    expect(verifyStandardWebhook(signer.newSecret(), headers, vector.body, vector.timestamp)).toBe(false);
  });

  it("makes secrets of whsec_ and base64 of 32 random bytes, never the same twice", () => {
    const a = signer.newSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(signer.newSecret()).not.toBe(a);
  });
});
