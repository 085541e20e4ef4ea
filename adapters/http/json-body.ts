import type { H3Event } from "h3";
import type { z } from "zod";
import { HttpProblem } from "./problem.ts";
import { parseOrReject } from "./validation.ts";

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

/** 415 unless JSON, 413 over 64 KiB, 400 invalid_json, then the schema (400 validation_failed). */
export const readJsonBody = async <S extends z.ZodType>(event: H3Event, schema: S): Promise<z.output<S>> => {
  if (!isJson(event.req.headers.get("content-type"))) {
    throw new HttpProblem("unsupported_media_type", "Send the body as Content-Type: application/json");
  }
  const text = await readBodyText(event);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpProblem("invalid_json", "The request body is not valid JSON");
  }
  return parseOrReject(schema, value, "body");
};
