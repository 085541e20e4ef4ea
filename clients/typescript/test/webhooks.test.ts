import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../src/index.ts";

// The Standard Webhooks specification's test vector (its reference libraries all reproduce it).
const vector = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const headers = {
  "webhook-id": vector.id,
  "webhook-timestamp": String(vector.timestamp),
  "webhook-signature": vector.signature,
};
const at = (seconds: number) => ({ now: () => seconds * 1000 });

describe("verifyWebhook", () => {
  it("accepts the specification's test vector, as a string, bytes or Headers", async () => {
    expect(await verifyWebhook(vector.secret, headers, vector.body, at(vector.timestamp))).toBe(true);
    expect(
      await verifyWebhook(vector.secret, headers, new TextEncoder().encode(vector.body), at(vector.timestamp)),
    ).toBe(true);
    expect(await verifyWebhook(vector.secret, new Headers(headers), vector.body, at(vector.timestamp))).toBe(true);
    const capitalised = {
      "Webhook-Id": vector.id,
      "Webhook-Timestamp": String(vector.timestamp),
      "Webhook-Signature": vector.signature,
    };
    expect(await verifyWebhook(vector.secret, capitalised, vector.body, at(vector.timestamp))).toBe(true);
  });

  it("accepts any one matching signature of several, under any one of several secrets", async () => {
    const several = { ...headers, "webhook-signature": `v1,AAAA v2,${vector.signature.slice(3)} ${vector.signature}` };
    expect(await verifyWebhook(["whsec_AAAAAAAA", vector.secret], several, vector.body, at(vector.timestamp))).toBe(
      true,
    );
  });

  it("refuses a changed body, id or signature, another secret, a missing header and a timestamp over 5 minutes away", async () => {
    const now = at(vector.timestamp);
    expect(await verifyWebhook(vector.secret, headers, `${vector.body} `, now)).toBe(false);
    expect(await verifyWebhook(vector.secret, { ...headers, "webhook-id": "msg_other" }, vector.body, now)).toBe(false);
    expect(
      await verifyWebhook(
        vector.secret,
        { ...headers, "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ2OE=" },
        vector.body,
        now,
      ),
    ).toBe(false);
    expect(
      await verifyWebhook(vector.secret, { ...headers, "webhook-signature": "v1,not base64!" }, vector.body, now),
    ).toBe(false);
    expect(await verifyWebhook("whsec_AAAAAAAA", headers, vector.body, now)).toBe(false);
    expect(await verifyWebhook(vector.secret, { ...headers, "webhook-id": undefined }, vector.body, now)).toBe(false);
    expect(await verifyWebhook(vector.secret, headers, vector.body, at(vector.timestamp + 301))).toBe(false);
    expect(await verifyWebhook(vector.secret, headers, vector.body, at(vector.timestamp - 301))).toBe(false);
    expect(
      await verifyWebhook(vector.secret, headers, vector.body, {
        ...at(vector.timestamp + 3600),
        toleranceSeconds: 3600,
      }),
    ).toBe(true);
  });
});
