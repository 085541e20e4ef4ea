/** Stable: clients read them in `code`. */
export type DomainErrorCode =
  | "validation_failed"
  | "not_found"
  | "gone"
  | "unknown_category"
  | "unknown_pet"
  | "invalid_transition"
  | "pet_has_open_orders"
  | "pet_not_available"
  | "insufficient_stock"
  | "stock_limit_exceeded"
  | "category_name_taken"
  | "category_in_use"
  | "order_completed"
  | "precondition_failed"
  | "last_admin_key"
  | "concurrent_update"
  | "unauthorized"
  | "forbidden"
  | "rate_limited"
  | "api_key_banned"
  | "idempotency_key_reused"
  | "idempotency_request_in_progress"
  | "service_unavailable"
  | "webhook_target_refused";

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: DomainErrorCode, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;

export const notFound = (what: string, id: number): DomainError =>
  new DomainError("not_found", `${what} ${id} does not exist`);

export const revisionMismatch = (what: string, id: number): DomainError =>
  new DomainError("precondition_failed", `${what} ${id} has changed since the revision you named`);
