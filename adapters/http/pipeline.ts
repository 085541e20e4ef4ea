import type { H3Event } from "h3";
import { getRequestIP } from "h3";
import { authorize, type Actor, type Permission } from "../../core/access/permissions.ts";
import type { AdmitRequest } from "../../core/rate-limiting/admit-request.ts";
import { planLimits } from "../../core/rate-limiting/plans.ts";
import { windowsAt } from "../../core/rate-limiting/windows.ts";
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
}

/**
 * The request pipeline every limited route runs through, once: admission (key, ban, quota), permission,
 * handler, errors → Error body. Rate-limit headers go on whatever comes out, errors included.
 */
export const createPipeline = ({ admit, clock, report }: PipelineDeps) =>
  async (event: H3Event, access: Access, handler: Handler): Promise<Response> => {
    let response: Response;
    let quotaHeaders: Headers | undefined;
    try {
      const admission = await admit.execute({
        secret: event.req.headers.get("x-api-key") ?? undefined,
        address: getRequestIP(event) ?? "unknown",
        keyRequired: access !== "public",
      });
      quotaHeaders = new Headers();
      setRateLimitHeaders(quotaHeaders, admission.quota, clock.now());
      if (admission.actor) noteKeyId(event, admission.actor.keyId);
      if (admission.refusal) throw admission.refusal;
      if (access !== "public" && access.permission && admission.actor) authorize(admission.actor, access.permission);
      response = await handler(event, admission.actor);
    } catch (error) {
      response = errorResponse(error, report);
      // Admission itself failed (the store is down): tell the client to back off until the next minute.
      quotaHeaders ??= unknownQuotaHeaders(clock.now());
    }
    quotaHeaders?.forEach((value, name) => response.headers.set(name, value));
    return response;
  };

const unknownQuotaHeaders = (now: Date): Headers => {
  const headers = new Headers();
  setRateLimitHeaders(
    headers,
    { limit: planLimits.free.perMinute, remaining: 0, resetsAt: windowsAt(now, planLimits.free).minute.resetsAt, limits: planLimits.free },
    now,
  );
  return headers;
};

export type Pipeline = ReturnType<typeof createPipeline>;
