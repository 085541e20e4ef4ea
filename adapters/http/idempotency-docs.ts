import { z } from "zod";
import type { ErrorCode } from "./problem.ts";

/** The request header of the creates that honour retries (see idempotency.ts), for the document. */
export const IdempotencyHeaders = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        "Makes retries safe: a retry with the same key and body (within 24 hours, per API key) replays the first response with `Idempotent-Replayed: true` instead of acting again. While the first request runs, its key is locked for at most 60 seconds: a retry then gets 409 `idempotency_request_in_progress` with `Retry-After` (the seconds until the lock runs out). A first request that never answers (its server died) holds the lock for those 60 seconds only; a retry after them runs the operation again. On the memory store only the 1,000 most recent keys of each API key are kept: a retry with an older key acts again.",
    }),
});

export const idempotencyErrors: readonly ErrorCode[] = ["idempotency_key_reused", "idempotency_request_in_progress"];
