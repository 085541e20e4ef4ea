import { z } from "zod";
import { defaultIdempotencyPolicy } from "../../core/idempotency/run-idempotently.ts";
import type { Route } from "./route.ts";

const retentionHours = defaultIdempotencyPolicy.retentionMs / 3_600_000;
const lockSeconds = defaultIdempotencyPolicy.leaseMs / 1000;

/** What `idempotent: true` adds to a route's input. */
const idempotencyHeader = {
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description: `Makes retries safe: a retry with the same key and body (within ${retentionHours} hours, per API key) replays the first response with \`Idempotent-Replayed: true\` instead of acting again. While the first request runs, its key is locked for at most ${lockSeconds} seconds: a retry then gets 409 \`idempotency_request_in_progress\` with \`Retry-After\` (the seconds until the lock runs out). A first request that never answers (its server died) holds the lock for those ${lockSeconds} seconds only; a retry after them runs the operation again, first answering or finishing whatever the lost request wrote (as does the retry of a 5xx answer): a key creates at most one pet, category or order. On the memory store only the 1,000 most recent keys of each API key are kept: a retry with an older key acts again. Refusals made before the operation runs (400, 401, 403, 413, 415, 429) are not kept: a corrected retry with the same key acts.`,
    }),
};

/** What `versioned` adds to a GET. */
const ifNoneMatchHeader = {
  "If-None-Match": z.string().optional().meta({
    description: "The `ETag` you hold: 304 Not Modified, without a body, while the resource has not changed.",
  }),
};

/** What `versioned` adds to a PUT, PATCH or DELETE. */
const ifMatchHeader = {
  "If-Match": z.string().optional().meta({
    description:
      "The `ETag` you read (one tag, or `*`): the change is made only if the resource has not changed since; otherwise 412 `precondition_failed` and nothing changes.",
  }),
};

/** Every request header a route reads, declared or following from its flags: for the pipeline and the document. */
export const headerShapeOf = (route: Route): z.ZodRawShape => ({
  ...route.input?.headers?.shape,
  ...(route.idempotent ? idempotencyHeader : {}),
  ...(route.versioned ? (route.method === "GET" ? ifNoneMatchHeader : ifMatchHeader) : {}),
});
