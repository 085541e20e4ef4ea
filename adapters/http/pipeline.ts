import type { H3Event } from "h3";
import { authorize, type Actor, type Permission } from "../../core/access/permissions.ts";
import type { Admission, AdmitRequest, Quota } from "../../core/rate-limiting/admit-request.ts";
import { isDomainError } from "../../core/shared/domain-error.ts";
import { planLimits } from "../../core/rate-limiting/plans.ts";
import type { Clock } from "../../core/shared/clock.port.ts";
import { errorResponse, type ErrorReporter } from "./error-response.ts";
import { setRateLimitHeaders } from "./rate-limit-headers.ts";
import { noteKeyId } from "./request-context.ts";

/** Who may call: any valid API key, one whose role has a permission, or anyone (limited per client address). */
export type Access = { permission?: Permission } | "public";

export type Handler = (event: H3Event, actor: Actor | undefined) => Promise<Response> | Response;

export interface PipelineDeps {
  admit: AdmitRequest;
  clock: Clock;
  report: ErrorReporter;
  /** The client's address (limits for requests without a key). */
  clientAddress: (event: H3Event) => string;
  /** Called with the code of every refusal at admission (rate_limited, api_key_banned, unauthorized): metrics. */
  onRefusal?: (code: string) => void;
}

/**
 * The request pipeline every limited route runs through, once: admission (key, ban, quota), permission,
 * handler, errors → Error body. Rate-limit headers go on whatever comes out, errors included.
 */
export const createPipeline = ({ admit, clock, report, clientAddress, onRefusal }: PipelineDeps) => {
  return async (event: H3Event, access: Access, handler: Handler): Promise<Response> => {
    let admission: Admission;
    try {
      admission = await admit.execute({
        secret: event.req.headers.get("x-api-key") ?? undefined,
        address: clientAddress(event),
        keyRequired: access !== "public",
      });
    } catch (error) {
      // The store behind keys and limits is not answering. Public documents need neither: serve them. Everything
      // else waits; either way the headers say "nothing left until Retry-After".
      const retryAfter = isDomainError(error) ? error.retryAfterSeconds : undefined;
      const unknown = unknownQuota(clock.now(), retryAfter);
      const outage = isDomainError(error) && error.code === "service_unavailable";
      return withQuota(outage && access === "public" ? await answer(() => handler(event, undefined)) : errorResponse(error, report), unknown);
    }
    if (admission.actor) noteKeyId(event, admission.actor.keyId);
    const response = await answer(() => {
      if (admission.refusal) {
        onRefusal?.(admission.refusal.code);
        throw admission.refusal;
      }
      if (access !== "public" && access.permission && admission.actor) authorize(admission.actor, access.permission);
      return handler(event, admission.actor);
    });
    return withQuota(response, admission.quota);
  };

  async function answer(run: () => Promise<Response> | Response): Promise<Response> {
    try {
      return await run();
    } catch (error) {
      return errorResponse(error, report);
    }
  }

  function withQuota(response: Response, quota: Quota): Response {
    setRateLimitHeaders(response.headers, quota, clock.now());
    return response;
  }
};

/** When the quota cannot be read: the free plan's limit, nothing remaining, reset when the client may retry. */
const unknownQuota = (now: Date, retryAfterSeconds = 60): Quota => ({
  limit: planLimits.free.perMinute,
  remaining: 0,
  resetsAt: new Date(now.getTime() + retryAfterSeconds * 1000),
  limits: planLimits.free,
});

export type Pipeline = ReturnType<typeof createPipeline>;
