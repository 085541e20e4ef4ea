import type { Readable } from "node:stream";
import type { H3Event } from "h3";
import { z } from "zod";
import { exactNumberMessages, InexactNumber, parseJsonExactly } from "./json-numbers.ts";
import { HttpProblem } from "./problem.ts";

export const BODY_LIMIT_BYTES = 64 * 1024;

// A number the body held but a double cannot (InexactNumber) fails whatever schema meets it, with this message.
z.config({ customError: exactNumberMessages });

/** `application/json`, with no charset or UTF-8's (RFC 8259 §8.1: JSON exchanged between systems is UTF-8). */
const mediaTypeProblem = (contentType: string | null): HttpProblem | undefined => {
  if (contentType === "application/json") return undefined;
  const [mediaType, ...parameters] = (contentType ?? "").split(";");
  if (mediaType!.trim().toLowerCase() !== "application/json") {
    return new HttpProblem("unsupported_media_type", "Send the body as Content-Type: application/json");
  }
  for (const parameter of parameters) {
    const [name, value = ""] = parameter.split("=", 2);
    if (name!.trim().toLowerCase() !== "charset") continue;
    // A token or a quoted string (RFC 9110 §5.6.6); what follows it (a repeated header's ", …") is not the charset.
    const charset = /^\s*(?:"([^"]*)"|([^\s;,"]*))/.exec(value)!.slice(1).join("").toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") {
      return new HttpProblem(
        "unsupported_media_type",
        `Bodies are UTF-8 only: send charset=utf-8 or no charset (got charset=${charset})`,
      );
    }
  }
  return undefined;
};

// The rest of the body is not wanted: closing spares both sides its transfer (RFC 9110 §15.5.14).
const tooLarge = () =>
  new HttpProblem("payload_too_large", `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes`, {
    headers: { connection: "close" },
  });

/**
 * The raw body as text, read once per request (the idempotency fingerprint and the JSON parser share it); kept in the
 * request's context, which goes with the request (a WeakMap entry per request is dear for the garbage collector).
 */
export const readBodyText = (event: H3Event): Promise<string> => {
  const context = event.context as { bodyText?: Promise<string> };
  return (context.bodyText ??= readLimited(event).then(decodeUtf8));
};

// The client closed the connection mid-body (or the parser gave up on it): nobody is left to answer, and it is no
// fault of ours, so it is answered like any truncated body rather than reported.
const cutShort = (size: number) =>
  new HttpProblem(
    "invalid_json",
    `The request body ended after ${size} bytes: the connection closed before it was complete`,
  );

/**
 * Reads at most BODY_LIMIT_BYTES, whatever Content-Length claims (chunked bodies have none): from node's request
 * itself when the server is node:http (no web stream in between), else from the web body.
 */
const readLimited = (event: H3Event): Promise<Uint8Array> => {
  const declared = Number(event.req.headers.get("content-length") ?? 0);
  if (declared > BODY_LIMIT_BYTES) return Promise.reject(tooLarge());
  const node = event.req.runtime?.node?.req;
  return node ? readNodeBody(node) : readWebBody(event.req);
};

const readNodeBody = (req: Readable): Promise<Uint8Array> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      req.off("data", onData).off("end", onEnd).off("error", onCut).off("close", onCut);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > BODY_LIMIT_BYTES) settle(() => reject(tooLarge()));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    const onCut = () => settle(() => reject(cutShort(size)));
    // Each is taken off when the first of them settles the body (`on`, not `once`: no wrapper per listener).
    req.on("data", onData).on("end", onEnd).on("error", onCut).on("close", onCut);
  });

const readWebBody = async (request: Request): Promise<Uint8Array> => {
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > BODY_LIMIT_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw cutShort(size);
  }
  return Buffer.concat(chunks);
};

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Invalid UTF-8 is refused rather than silently turned into U+FFFD; so is a byte order mark. */
const decodeUtf8 = (bytes: Uint8Array): string => {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpProblem(
      "invalid_json",
      `The request body is not valid UTF-8 (first bad byte at offset ${firstInvalidUtf8Offset(bytes)})`,
    );
  }
  if (text.startsWith("\uFEFF")) {
    throw new HttpProblem(
      "invalid_json",
      "The request body starts with a UTF-8 byte order mark (EF BB BF): remove the byte order mark",
    );
  }
  return text;
};

/** Where decoding first fails: the start of the first ill-formed sequence (the Unicode standard's Table 3-7). */
export const firstInvalidUtf8Offset = (bytes: Uint8Array): number => {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b < 0x80) length = 1;
    else if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
};

/** The body's text, once it is known to be JSON in UTF-8 (415 otherwise) of at most 64 KiB (413). */
export const readJsonText = async (event: H3Event): Promise<string> => {
  const mediaType = mediaTypeProblem(event.req.headers.get("content-type"));
  if (mediaType) throw mediaType;
  return await readBodyText(event);
};

/** The JSON value of a body's text: 400 invalid_json, or 400 for inexact numbers. The schema is the pipeline's. */
export const jsonValueOf = (text: string): unknown => {
  let value: unknown;
  try {
    value = parseJsonExactly(text);
  } catch {
    throw new HttpProblem("invalid_json", "The request body is not valid JSON");
  }
  if (value instanceof InexactNumber) {
    throw new HttpProblem("validation_failed", "The request body is not valid", {
      details: [{ path: "body", message: value.message }],
    });
  }
  return value;
};
