/**
 * Verifies a webhook the service sent, as the Standard Webhooks specification tells a receiver to: HMAC-SHA256,
 * keyed with the base64 part of the secret after `whsec_`, over `${webhook-id}.${webhook-timestamp}.${body}`;
 * `webhook-signature` lists `v1,<base64>` signatures separated by spaces, any one of which may match. Web Crypto
 * only, so it runs in browsers and edge runtimes as well as Node.
 */

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds, either way (default 300): an old message replayed is refused. */
  toleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch (default Date.now). */
  now?: () => number;
}

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return typeof value === "string" ? value : undefined;
};

const fromBase64 = (text: string): Uint8Array | undefined => {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
};

const bytesOf = (body: string | Uint8Array | ArrayBuffer): Uint8Array =>
  typeof body === "string" ? new TextEncoder().encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body);

/**
 * True when `body` (the raw body, exactly as received: re-serialised JSON would not match) carries a valid signature
 * under `secret` (or under any of several secrets, as while one is being rotated) and a recent timestamp.
 */
export const verifyWebhook = async (
  secret: string | readonly string[],
  headers: WebhookHeaders,
  body: string | Uint8Array | ArrayBuffer,
  options: VerifyWebhookOptions = {},
): Promise<boolean> => {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;

  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const payload = bytesOf(body);
  const signed = new Uint8Array(prefix.length + payload.length);
  signed.set(prefix);
  signed.set(payload, prefix.length);

  const given = signatures
    .split(" ")
    .map((entry) => entry.split(","))
    .flatMap(([version, value]) => (version === "v1" && value ? [fromBase64(value)] : []))
    .filter((bytes): bytes is Uint8Array => bytes !== undefined);
  if (!given.length) return false;

  for (const each of typeof secret === "string" ? [secret] : secret) {
    const keyBytes = fromBase64(each.startsWith("whsec_") ? each.slice("whsec_".length) : each);
    if (!keyBytes) continue;
    const key = await crypto.subtle.importKey(
      "raw",
      keyBytes as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    // subtle.verify compares in constant time.
    for (const signature of given) {
      if (await crypto.subtle.verify("HMAC", key, signature as Uint8Array<ArrayBuffer>, signed)) return true;
    }
  }
  return false;
};
