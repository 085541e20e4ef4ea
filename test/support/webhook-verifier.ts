import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Verifies a webhook as the Standard Webhooks specification tells a receiver to, written from the specification
 * alone (nothing shared with the service's signer): the key is the base64 part of the secret after `whsec_`; the
 * signed content is `${webhook-id}.${webhook-timestamp}.${body}`; `webhook-signature` is a space-separated list of
 * `v1,<base64>`, any one of which may match; timestamps more than 5 minutes away are refused.
 */
export const verifyStandardWebhook = (
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean => {
  const [id, timestamp, signatures] = ["webhook-id", "webhook-timestamp", "webhook-signature"].map((h) => headers[h]);
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.split("_").slice(1).join("_"), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
};
