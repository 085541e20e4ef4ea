import { createHash } from "node:crypto";
import type { H3Event } from "h3";
import type { Actor } from "../../core/access/permissions.ts";
import type { RecordedResponse } from "../../core/idempotency/idempotency-records.port.ts";
import type { IdempotentAttempt, RunIdempotently } from "../../core/idempotency/run-idempotently.ts";
import { errorResponse, type ErrorReporter } from "./error-response.ts";
import { readBodyText } from "./json-body.ts";
import { requestIdOf } from "./request-context.ts";
import { emptyResponse, textResponse, type Answer } from "./response.ts";

const record = (response: Answer): RecordedResponse => ({
  status: response.status,
  body: typeof response.body === "string" ? response.body : "",
  headers: { ...response.headers },
});

const replay = (recorded: RecordedResponse, replayed: boolean): Answer => {
  const headers = replayed ? { ...recorded.headers, "idempotent-replayed": "true" } : recorded.headers;
  if (recorded.status === 204) return emptyResponse(204, headers);
  const { "content-length": _, ...rest } = headers;
  return textResponse(recorded.body, recorded.status, rest);
};

/**
 * Runs an operation under an `Idempotency-Key`, once the request passed every check: its response (2xx or 4xx
 * from the operation) is kept for 24 hours, and a retry with the same key, method, path and body gets it again,
 * marked `Idempotent-Replayed: true`, without acting. Server errors are not kept: their retries act afresh, learning
 * the failed attempt's note.
 */
export const idempotently = async (
  run: RunIdempotently,
  report: ErrorReporter,
  event: H3Event,
  actor: Actor,
  key: string,
  act: (attempt: IdempotentAttempt) => Promise<Answer>,
): Promise<Answer> => {
  const body = await readBodyText(event);
  const fingerprint = createHash("sha256")
    .update(`${event.req.method} ${event.url.pathname}\n${body}`)
    .digest("base64url");
  const { response, replayed } = await run.execute(
    { scope: `key:${actor.keyId}`, key, fingerprint },
    async (attempt) => {
      try {
        return record(await act(attempt));
      } catch (error) {
        return record(errorResponse(error, report, requestIdOf(event)));
      }
    },
    (recorded) => recorded.status < 500,
  );
  return replay(response, replayed);
};
