import { z } from "zod";
import { DomainError } from "../../../core/shared/domain-error.ts";
import { route } from "../route.ts";

/** Outside admission: no key, never limited, no rate-limit headers. */
export const probeRoutes = [
  route({
    method: "GET",
    path: "/healthz",
    operationId: "getHealth",
    tag: "Health",
    summary: "Liveness",
    description: "200 while the process is alive.",
    access: "unlimited",
    output: { status: 200, description: "Alive.", body: z.object({ status: z.literal("ok") }) },
    handle: () => ({ status: "ok" }),
  }),
  route({
    method: "GET",
    path: "/readyz",
    operationId: "getReadiness",
    tag: "Health",
    summary: "Readiness",
    description:
      "200 when the store answers, else 503 `service_unavailable`; 503 too from SIGTERM on, while the service drains.",
    access: "unlimited",
    output: { status: 200, description: "Ready.", body: z.object({ status: z.literal("ready") }) },
    errors: ["service_unavailable"],
    handle: async (_input, _actor, { health, readinessTimeoutMs, draining }) => {
      if (draining()) throw new DomainError("service_unavailable", "The service is shutting down");
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          health.ping(),
          new Promise((_, reject) => {
            timer = setTimeout(reject, readinessTimeoutMs, new Error("store ping timed out"));
          }),
        ]);
      } catch {
        throw new DomainError("service_unavailable", "The store is not answering", 5);
      } finally {
        clearTimeout(timer);
      }
      return { status: "ready" };
    },
  }),
];
