import { createHash } from "node:crypto";
import type { H3Event } from "h3";
import type { Actor } from "../../core/access/permissions.ts";
import type { RecordedResponse } from "../../core/idempotency/idempotency-records.port.ts";
import type { RunIdempotently } from "../../core/idempotency/run-idempotently.ts";
import { errorResponse, type ErrorReporter } from "./error-response.ts";
import { readBodyText } from "./json-body.ts";
import { HttpProblem } from "./problem.ts";

const MAX_KEY_LENGTH = 255;

const record = async (response: Response): Promise<RecordedResponse> => ({
  status: response.status,
  body: await response.text(),
  headers: Object.fromEntries(response.headers),
});

const replay = (recorded: RecordedResponse, replayed: boolean): Response => {
  const response = new Response(recorded.status === 204 ? null : recorded.body, { status: recorded.status, headers: recorded.headers });
  if (replayed) response.headers.set("idempotent-replayed", "true");
  return response;
};

/**
 * `Idempotency-Key` on a create: the first request with a key acts and its response (2xx or 4xx) is kept for
 * 24 hours; a retry with the same key and the same method, path and body gets that response again, marked
 * `Idempotent-Replayed: true`, without acting. Server errors are not kept, so their retries act afresh.
 */
export const idempotently = async (
  run: RunIdempotently,
  report: ErrorReporter,
  event: H3Event,
  actor: Actor,
  handle: () => Promise<Response> | Response,
): Promise<Response> => {
  const key = event.req.headers.get("idempotency-key");
  if (key === null) return handle();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new HttpProblem("validation_failed", `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, {
      details: [{ path: "header.Idempotency-Key", message: `Expected 1 to ${MAX_KEY_LENGTH} characters, got ${key.length}` }],
    });
  }
  const body = await readBodyText(event);
  const fingerprint = createHash("sha256").update(`${event.req.method} ${event.url.pathname}\n${body}`).digest("base64url");
  const { response, replayed } = await run.execute(
    { scope: `key:${actor.keyId}`, key, fingerprint },
    async () => {
      try {
        return await record(await handle());
      } catch (error) {
        return record(errorResponse(error, report));
      }
    },
    (recorded) => recorded.status < 500,
  );
  return replay(response, replayed);
};
