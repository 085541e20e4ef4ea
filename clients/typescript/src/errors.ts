import { errorCodes, type ErrorCode } from "./generated/error-codes.js";
import type { components } from "./generated/petstore-api.js";

export { errorCodes, type ErrorCode };

/** The service's `Error` body, its `code` narrowed to the codes the OpenAPI document lists. */
export type PetstoreErrorBody<C extends ErrorCode = ErrorCode> = Omit<components["schemas"]["Error"], "code"> & {
  code: C;
};

const looksLikeErrorBody = (value: unknown): value is PetstoreErrorBody =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { code?: unknown }).code === "string" &&
  typeof (value as { message?: unknown }).message === "string" &&
  typeof (value as { status?: unknown }).status === "number";

/** What the helpers throw when the service answers an error (a failed page of a list, a failed read before an update). */
export class PetstoreError<C extends ErrorCode = ErrorCode> extends Error implements PetstoreErrorBody<C> {
  readonly code: C;
  readonly status: number;
  readonly details?: NonNullable<PetstoreErrorBody["details"]>;
  readonly response: Response | undefined;

  constructor(body: PetstoreErrorBody<C>, response?: Response) {
    super(`${body.status} ${body.code}: ${body.message}`);
    this.name = "PetstoreError";
    this.code = body.code;
    this.status = body.status;
    if (body.details !== undefined) this.details = body.details;
    this.response = response;
  }
}

/**
 * Whether `value` is the service's Error body (an openapi-fetch `error`, or a thrown PetstoreError), with this `code`
 * when one is given: `if (isPetstoreError(error, "insufficient_stock")) …`.
 */
export function isPetstoreError<C extends ErrorCode = ErrorCode>(
  value: unknown,
  code?: C,
): value is PetstoreErrorBody<C> {
  return looksLikeErrorBody(value) && (code === undefined || value.code === code);
}

/** A helper's failure as an Error to throw: a PetstoreError for the service's Error body, else a plain Error. */
export const errorToThrow = (error: unknown, response: Response): Error =>
  looksLikeErrorBody(error)
    ? new PetstoreError(error, response)
    : new Error(
        `${response.status} ${response.statusText || "error"} from ${response.url}: ${typeof error === "string" ? error.slice(0, 200) : JSON.stringify(error)}`,
      );
