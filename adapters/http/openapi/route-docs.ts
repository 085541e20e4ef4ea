import type { z } from "zod";
import type { ErrorCode } from "../problem.ts";

/**
 * What the OpenAPI document says about one operation, written beside the route it describes.
 * Declarative only: the builder (document.ts) adds what every operation shares — the API key, the
 * rate-limit headers, and the errors that follow from having a path, a query or a body.
 */
export interface RouteDocs {
  /** `Pets` and `Store` make the public reference; the other tags go to the operators' document. */
  tag: DocTag;
  summary: string;
  description?: string;
  /** The path parameters (an `idParam(...)` object); their names must match the path. */
  path?: z.ZodObject;
  /** The query string, one property a parameter. */
  query?: z.ZodObject;
  /** Request headers beyond `X-API-Key` (e.g. an `Idempotency-Key`), one property a header. */
  headers?: z.ZodObject;
  /** A JSON request body. */
  body?: z.ZodType;
  success: SuccessDocs;
  /** Error codes this operation can answer beyond the ones the builder derives. */
  errors?: readonly ErrorCode[];
  /** Deprecated in favour of another operation: `deprecated: true`, `x-sunset` and the RFC 9745/8594 headers. */
  deprecated?: { successor: string };
  /** Shown as a stability mark (`x-stability`) and a badge (`x-badges`). */
  stability?: "beta" | "experimental";
  /** Turns off the interactive try-out of this operation in the reference (`x-hideTryItPanel`). */
  hideTryItPanel?: boolean;
}

export type DocTag = "Pets" | "Store" | "API keys" | "Reference" | "Health";

export const publicTags: readonly DocTag[] = ["Pets", "Store"];

export interface SuccessDocs {
  status: 200 | 201 | 204;
  description: string;
  /** The body; JSON unless `mediaTypes` says otherwise. */
  body?: z.ZodType;
  mediaTypes?: readonly string[];
  /** `Location` on creates, `Link` (rel="next") on lists. */
  headers?: readonly ("Location" | "Link")[];
  /** A static document or asset: compressed by `Accept-Encoding`, `ETag`, `If-None-Match` → 304. */
  cacheable?: true;
}
