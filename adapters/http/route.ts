import type { H3Event } from "h3";
import type { Actor } from "../../core/access/permissions.ts";
import type { Page } from "../../core/shared/page.ts";
import { json } from "./json.ts";
import type { Access } from "./pipeline.ts";
import type { RouteDocs } from "./openapi/route-docs.ts";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One operation: what the router, the pipeline and the OpenAPI document need to know about it. */
export interface Route {
  method: Method;
  /** h3 syntax, e.g. /pets/:petId */
  path: string;
  operationId: string;
  access: Exclude<Access, "public">;
  /** What the OpenAPI document says about it (summary, tag, schemas, the errors it can answer). */
  docs: RouteDocs;
  /** Honours an `Idempotency-Key` header: a retry replays the first response instead of acting again. */
  idempotent?: true;
  handle(event: H3Event, actor: Actor): Promise<Response> | Response;
}

/** The caller of a keyed route: the pipeline admitted it, so it is there. */
export const requireActor = (actor: Actor | undefined): Actor => {
  if (!actor) throw new Error("A keyed route ran without an actor");
  return actor;
};

export const pathParams = (event: H3Event): Record<string, string> => event.context.params ?? {};

/**
 * The query as an object: one string per name, an array for a repeated name. Built with Object.fromEntries so
 * that every name, `__proto__` included, is an own property the schema sees (and refuses), never a prototype.
 */
export const queryOf = (event: H3Event): Record<string, string | string[]> => {
  const grouped = new Map<string, string[]>();
  for (const [key, value] of event.url.searchParams) grouped.set(key, [...(grouped.get(key) ?? []), value]);
  return Object.fromEntries([...grouped].map(([key, values]) => [key, values.length === 1 ? values[0]! : values]));
};

/** A bare JSON array, with an RFC 8288 `Link: <…>; rel="next"` when more items exist. */
export const pageResponse = <T>(event: H3Event, page: Page<T>, present: (item: T) => unknown): Response => {
  const response = json(page.items.map(present));
  if (page.nextAfter !== undefined) {
    const next = new URLSearchParams(event.url.searchParams);
    next.set("after", String(page.nextAfter));
    response.headers.set("link", `<${event.url.pathname}?${next}>; rel="next"`);
  }
  return response;
};

export const created = (body: unknown, location: string): Response => {
  const response = json(body, 201);
  response.headers.set("location", location);
  return response;
};
