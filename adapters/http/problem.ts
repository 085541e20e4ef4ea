import type { DomainErrorCode } from "../../core/shared/domain-error.ts";

/** Codes only the HTTP edge produces; the domain never sees them. */
export type HttpOnlyCode =
  | "bad_request"
  | "request_timeout"
  | "uri_too_long"
  | "expectation_failed"
  | "headers_too_large"
  | "invalid_json"
  | "unsupported_media_type"
  | "payload_too_large"
  | "method_not_allowed"
  | "internal_error";

export type ErrorCode = DomainErrorCode | HttpOnlyCode;

/** Every error code and its status: the one place where the domain meets HTTP. */
export const statusOfCode: Readonly<Record<ErrorCode, number>> = {
  validation_failed: 400,
  invalid_json: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  api_key_banned: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_transition: 409,
  pet_has_open_orders: 409,
  pet_not_available: 409,
  insufficient_stock: 409,
  stock_limit_exceeded: 409,
  category_name_taken: 409,
  category_in_use: 409,
  order_completed: 409,
  last_admin_key: 409,
  concurrent_update: 409,
  idempotency_request_in_progress: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  expectation_failed: 417,
  unknown_category: 422,
  webhook_target_refused: 422,
  unknown_pet: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
};

export interface ProblemDetail {
  path: string;
  message: string;
}

/** A failure detected at the HTTP edge, before or instead of any use case. */
export class HttpProblem extends Error {
  readonly code: ErrorCode;
  readonly details: ProblemDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ProblemDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "HttpProblem";
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
  details?: ProblemDetail[];
}
