import { isDomainError } from "../../core/shared/domain-error.ts";
import { json } from "./json.ts";
import { HttpProblem, statusOfCode, type ErrorBody } from "./problem.ts";

export type ErrorReporter = (error: unknown) => void;

/** Any failure → the Error body with the right status. Unknown failures are reported and answered 500, without detail. */
export const errorResponse = (error: unknown, report: ErrorReporter): Response => {
  let body: ErrorBody;
  const headers = new Headers();
  if (error instanceof HttpProblem) {
    body = { code: error.code, message: error.message, status: statusOfCode[error.code] };
    if (error.details) body.details = error.details;
    for (const [name, value] of Object.entries(error.headers)) headers.set(name, value);
  } else if (isDomainError(error)) {
    body = { code: error.code, message: error.message, status: statusOfCode[error.code] };
    if (error.retryAfterSeconds !== undefined) headers.set("retry-after", String(error.retryAfterSeconds));
  } else {
    report(error);
    body = { code: "internal_error", message: "Something went wrong on our side", status: 500 };
  }
  headers.set("cache-control", "no-store");
  return json(body, body.status, headers);
};
