import type { H3Event } from "h3";
import { z } from "zod";
import { authorize, type Actor } from "../../core/access/permissions.ts";
import type { Admission, AdmitRequest, Quota } from "../../core/rate-limiting/admit-request.ts";
import type { RunIdempotently } from "../../core/idempotency/run-idempotently.ts";
import { planLimits } from "../../core/rate-limiting/plans.ts";
import { rateWindows, windowNames } from "../../core/rate-limiting/windows.ts";
import type { Clock } from "../../core/shared/clock.port.ts";
import { isDomainError } from "../../core/shared/domain-error.ts";
import { respondWithAsset } from "./compressed-asset.ts";
import { expectedRevisionOf, matchesNoneMatch } from "./conditional.ts";
import { errorResponse, type ErrorReporter } from "./error-response.ts";
import { idempotently } from "./idempotency.ts";
import { headerShapeOf } from "./request-headers.ts";
import { jsonValueOf, readJsonText } from "./json-body.ts";
import { HttpProblem, type ProblemDetail } from "./problem.ts";
import { setRateLimitHeaders } from "./rate-limit-headers.ts";
import { noteKeyId, requestIdOf } from "./request-context.ts";
import { emptyResponse, jsonResponse, textResponse, type Answer } from "./response.ts";
import { Reply, type Access, type Parsed, type Route, type RouteInput, type RouteServices } from "./route.ts";
import { NoQuery } from "./schemas.ts";
import { checkTargetText } from "./target-text.ts";
import { parseInto } from "./validation.ts";

export interface PipelineDeps {
  admit: AdmitRequest;
  runIdempotently: RunIdempotently;
  clock: Clock;
  report: ErrorReporter;
  /** The client's address (limits for requests without a key). */
  clientAddress: (event: H3Event) => string;
  /** Called with the code of every refusal at admission (rate_limited, api_key_banned, unauthorized): metrics. */
  onRefusal?: ((code: string) => void) | undefined;
}

/** A route, compiled once: the schemas it needs are resolved here, not per request. */
export type Operation = (event: H3Event) => Promise<Answer>;

/** Query parameters as the pipeline hands them to zod: one string per name, an array for a repeated name. */
type RawParams = Record<string, string | string[]>;

/**
 * The query as an object: one string per name, an array for a repeated name. Every name, `__proto__` included, is an
 * own property the schema sees (and refuses), never a prototype.
 */
const queryOf = (event: H3Event): RawParams => {
  const query: RawParams = {};
  for (const [key, value] of event.url.searchParams) {
    const seen = Object.hasOwn(query, key) ? query[key] : undefined;
    const all = seen === undefined ? value : typeof seen === "string" ? [seen, value] : [...seen, value];
    if (key === "__proto__")
      Object.defineProperty(query, key, { value: all, enumerable: true, writable: true, configurable: true });
    else query[key] = all;
  }
  return query;
};

const paramsOf = (event: H3Event): Record<string, string> => event.context.params ?? {};

const invalid = (details: ProblemDetail[]): HttpProblem => {
  const parts = new Set(details.map((d) => d.path.split(".")[0]));
  const where = parts.size === 1 ? ` ${[...parts][0]}` : "";
  return new HttpProblem("validation_failed", `The request${where} is not valid`, { details });
};

/** When the quota cannot be read: the free plan's limit, nothing remaining, reset when the client may retry. */
const unknownQuota = (now: Date, retryAfterSeconds = 60): Quota => ({
  window: windowNames[0]!,
  limit: planLimits.free[rateWindows[windowNames[0]!].limitField],
  remaining: 0,
  resetsAt: new Date(now.getTime() + retryAfterSeconds * 1000),
  limits: planLimits.free,
});

/** Runs `run`, answering whatever it throws as the error it stands for. */
const answered = async (deps: PipelineDeps, event: H3Event, run: () => Promise<Answer> | Answer): Promise<Answer> => {
  try {
    return await run();
  } catch (error) {
    return errorResponse(error, deps.report, requestIdOf(event));
  }
};

const withQuota = (deps: PipelineDeps, response: Answer, quota: Quota): Answer => {
  setRateLimitHeaders(response.headers, quota, deps.clock.now());
  return response;
};

/**
 * Step 1, admission: key, ban and quota, then permission; `handler` runs only for an admitted request, and the
 * rate-limit headers go on whatever comes out, errors included. `"unlimited"` skips admission altogether.
 */
const admitted = async (
  deps: PipelineDeps,
  event: H3Event,
  access: Access,
  handler: (actor: Actor | undefined) => Promise<Answer> | Answer,
): Promise<Answer> => {
  if (access === "unlimited") return await answered(deps, event, () => handler(undefined));
  const keyed = access !== "public";
  let admission: Admission;
  try {
    admission = await deps.admit.execute({
      secret: event.req.headers.get("x-api-key") ?? undefined,
      address: deps.clientAddress(event),
      keyRequired: keyed,
    });
  } catch (error) {
    // The store behind keys and limits is not answering. Public documents need neither: serve them. Everything
    // else waits; either way the headers say "nothing left until Retry-After".
    const retryAfter = isDomainError(error) ? error.retryAfterSeconds : undefined;
    const outage = isDomainError(error) && error.code === "service_unavailable";
    const response =
      outage && !keyed
        ? await answered(deps, event, () => handler(undefined))
        : errorResponse(error, deps.report, requestIdOf(event));
    return withQuota(deps, response, unknownQuota(deps.clock.now(), retryAfter));
  }
  const { actor, refusal, quota } = admission;
  if (actor) noteKeyId(event, actor.keyId);
  const response = await answered(deps, event, () => {
    if (refusal) {
      deps.onRefusal?.(refusal.code);
      throw refusal;
    }
    if (keyed && access !== "any-key" && actor) authorize(actor, access);
    return handler(actor);
  });
  return withQuota(deps, response, quota);
};

type InputReader = (event: H3Event) => Parsed<RouteInput> | Promise<Parsed<RouteInput>>;

/**
 * Step 2, input: path, query and headers parsed by the route's schemas at once, every problem reported together;
 * only a route that takes a body waits, for the body. The schemas are resolved here, once per route.
 */
const inputReader = (route: Route, clientAddress: PipelineDeps["clientAddress"]): InputReader => {
  const input: RouteInput = route.input ?? {};
  const querySchema = input.query ?? NoQuery;
  const { path: pathSchema, body: bodySchema } = input;
  const writes = route.method !== "GET";
  const headerShape = headerShapeOf(route);
  const headerNames = Object.keys(headerShape);
  const headerSchema = headerNames.length ? z.object(headerShape) : undefined;
  const { versioned } = route;

  return (event) => {
    const details: ProblemDetail[] = [];
    checkTargetText(event.url.pathname, event.url.search, details);
    const path = (pathSchema ? parseInto(pathSchema, paramsOf(event), "path", details) : {}) as Record<string, unknown>;
    // Most requests have no query: a route without query parameters then parses nothing.
    const query =
      !input.query && event.url.search === "" ? {} : parseInto(querySchema, queryOf(event), "query", details);
    const headers = headerSchema
      ? parseInto(
          headerSchema,
          Object.fromEntries(headerNames.map((name) => [name, event.req.headers.get(name) ?? undefined])),
          "header",
          details,
        )
      : {};
    const parsed = (body: unknown): Parsed<RouteInput> => {
      if (details.length) throw invalid(details);
      const expectedRevision =
        versioned && writes
          ? expectedRevisionOf(event.req.headers.get("if-match"), versioned, path[versioned.idParam] as number)
          : undefined;
      return {
        path,
        query,
        headers,
        body,
        expectedRevision,
        clientAddress: clientAddress(event),
      } as Parsed<RouteInput>;
    };
    if (!bodySchema) return parsed(undefined);
    // A body that cannot be read (415, 413, invalid JSON) yields to the problems already found.
    return readJsonText(event)
      .then((text) => parseInto(bodySchema, jsonValueOf(text), "body", details))
      .then(parsed, (error: unknown) => {
        throw details.length ? invalid(details) : error;
      });
  };
};

/** Step 4, the answer: one serialisation of what the handler returned (paging link, ETag and 304, asset, stream). */
const answerOf = (route: Route, result: unknown, event: H3Event): Answer => {
  const reply = result instanceof Reply ? result : new Reply({ body: result });
  if (reply.asset) return respondWithAsset(reply.asset, event.req, reply.headers);
  if (reply.stream)
    return {
      status: 200,
      headers: { ...reply.headers, "content-type": reply.stream.contentType },
      body: reply.stream.body,
    };
  const headers = { ...reply.headers };
  if (reply.nextAfter !== undefined) {
    const next = new URLSearchParams(event.url.searchParams);
    next.set("after", String(reply.nextAfter));
    if (reply.nextAfterName !== undefined) next.set("afterName", reply.nextAfterName);
    headers.link = `<${event.url.pathname}?${next}>; rel="next"`;
  }
  if (reply.etag) {
    headers.etag = reply.etag;
    if (route.method === "GET" && matchesNoneMatch(event.req.headers.get("if-none-match"), reply.etag))
      return emptyResponse(304, headers);
  }
  if (route.output.status === 204) return emptyResponse(204, headers);
  if (reply.raw)
    return textResponse(reply.raw.text, route.output.status, { "content-type": reply.raw.contentType, ...headers });
  return jsonResponse(reply.body, route.output.status, headers);
};

type Run = (event: H3Event, actor: Actor | undefined) => Promise<Answer>;

/** Steps 2 to 4 for an admitted request: input, the handler (under its Idempotency-Key when it has one), answer. */
const runner = (deps: PipelineDeps, route: Route, services: RouteServices): Run => {
  const read = inputReader(route, deps.clientAddress);
  // Keyed routes always have an actor once admitted; open routes never get one.
  const handle = route.handle as (parsed: Parsed<RouteInput>, actor: Actor | undefined, app: RouteServices) => unknown;
  return async (event, actor) => {
    const reading = read(event);
    const parsed = reading instanceof Promise ? await reading : reading;
    const key = route.idempotent ? (parsed.headers as { "Idempotency-Key"?: string })["Idempotency-Key"] : undefined;
    if (key === undefined || !actor) return answerOf(route, await handle(parsed, actor, services), event);
    return await idempotently(deps.runIdempotently, deps.report, event, actor, key, async (attempt) =>
      answerOf(route, await handle({ ...parsed, attempt }, actor, services), event),
    );
  };
};

/** A deprecated operation: every answer says so, and after its sunset it is gone, whatever was asked. */
const deprecatedOperation = (deps: PipelineDeps, route: Route, services: RouteServices, run: Run): Operation => {
  const deprecated = route.deprecated!;
  const { deprecatedAt, sunsetAt } = services.deprecation;
  const deprecation = `@${Math.floor(deprecatedAt.getTime() / 1000)}`;
  const sunset = sunsetAt.toUTCString();
  // The successor's path, split around its parameters once: `/pets?ids={petId}` → ["/pets?ids=", "petId", ""].
  const successor = deprecated.successor.replace(/^[A-Z]+ /, "").split(/\{(\w+)\}/);
  const successorOf = (params: Record<string, string>) =>
    successor.map((part, i) => (i % 2 === 1 ? (params[part] ?? "") : part)).join("");
  return (event) =>
    admitted(deps, event, route.access, async (actor) => {
      const headers = {
        deprecation,
        sunset,
        link: `<${successorOf(event.context.params ?? {})}>; rel="successor-version"`,
      };
      const response =
        deps.clock.now() >= sunsetAt
          ? errorResponse(
              new HttpProblem("gone", `${route.method} ${route.path} reached its sunset; use ${deprecated.successor}`),
              deps.report,
            )
          : await answered(deps, event, () => run(event, actor));
      Object.assign(response.headers, headers);
      return response;
    });
};

/**
 * The path-parameter check of a route on its own, for the answers of a path that run no operation (OPTIONS): a
 * malformed id is 400 there as under every other method.
 */
const pathCheck = (route: Route | undefined): ((event: H3Event) => void) => {
  const schema = route?.input?.path;
  if (!schema) return () => undefined;
  return (event) => {
    const details: ProblemDetail[] = [];
    parseInto(schema, event.context.params ?? {}, "path", details);
    if (details.length) throw invalid(details);
  };
};

/**
 * The request pipeline, once per request: admission (key, ban, quota, permission), input (path, query, headers,
 * body, preconditions), the handler, and the answer. Every refusal happens before the operation runs, so none is
 * ever kept under an Idempotency-Key.
 */
export const createPipeline = (deps: PipelineDeps) => ({
  admitted: (event: H3Event, access: Access, handler: (actor: Actor | undefined) => Promise<Answer> | Answer) =>
    admitted(deps, event, access, handler),
  /** Compiles a route into what the router calls. */
  operation: (route: Route, services: RouteServices): Operation => {
    const run = runner(deps, route, services);
    if (route.deprecated) return deprecatedOperation(deps, route, services, run);
    return (event) => admitted(deps, event, route.access, (actor) => run(event, actor));
  },
  pathCheck,
});

export type Pipeline = ReturnType<typeof createPipeline>;
