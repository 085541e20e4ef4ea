import { isDomainError } from "../../core/shared/domain-error.ts";
import { jsonResponse, type Answer } from "./response.ts";
import { HttpProblem, statusOfCode, type ErrorBody } from "./problem.ts";

/** Called with a failure that is a bug, and the id of the request it happened in. */
export type ErrorReporter = (error: unknown, requestId: string | undefined) => void;

/** Any failure → the Error body with the right status. Unknown failures are reported and answered 500, without detail. */
export const errorResponse = (error: unknown, report: ErrorReporter, requestId?: string): Answer => {
  let body: ErrorBody;
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (error instanceof HttpProblem) {
    body = { code: error.code, message: error.message, status: statusOfCode[error.code] };
    if (error.details) body.details = error.details;
    Object.assign(headers, error.headers);
  } else if (isDomainError(error)) {
    body = { code: error.code, message: error.message, status: statusOfCode[error.code] };
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  } else {
    report(error, requestId);
    body = { code: "internal_error", message: "Something went wrong on our side", status: 500 };
  }
  return jsonResponse(body, body.status, headers);
};
