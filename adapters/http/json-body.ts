import type { H3Event } from "h3";
import { HttpProblem } from "./problem.ts";

export const BODY_LIMIT_BYTES = 64 * 1024;

const isJson = (contentType: string | null): boolean => {
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
};

const tooLarge = () => new HttpProblem("payload_too_large", `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes`);

const bodyTexts = new WeakMap<H3Event, Promise<string>>();

/** The raw body, read once per request (the idempotency fingerprint and the JSON parser share it). */
export const readBodyText = (event: H3Event): Promise<string> => {
  let text = bodyTexts.get(event);
  if (!text) {
    text = readLimited(event.req);
    bodyTexts.set(event, text);
  }
  return text;
};

/** Reads at most BODY_LIMIT_BYTES, whatever Content-Length claims (chunked bodies have none). */
const readLimited = async (request: Request): Promise<string> => {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > BODY_LIMIT_BYTES) throw tooLarge();
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > BODY_LIMIT_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
};

/** The JSON value of the body: 415 unless JSON, 413 over 64 KiB, 400 invalid_json. The schema is the pipeline's. */
export const readJsonBody = async (event: H3Event): Promise<unknown> => {
  if (!isJson(event.req.headers.get("content-type"))) {
    throw new HttpProblem("unsupported_media_type", "Send the body as Content-Type: application/json");
  }
  const text = await readBodyText(event);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpProblem("invalid_json", "The request body is not valid JSON");
  }
};
