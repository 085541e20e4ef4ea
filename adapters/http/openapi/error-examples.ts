import { BODY_LIMIT_BYTES } from "../json-body.ts";
import type { ErrorCode } from "../problem.ts";

interface ErrorDoc {
  /** When a client gets it: shown in the response description and as the example's summary. */
  when: string;
  /** An example `message` (the real one may differ; clients branch on `code`). */
  message: string;
  details?: { path: string; message: string }[];
}

/** What each error code means, with an example body: the `examples` of every documented error response. */
export const errorDocs: Readonly<Record<ErrorCode, ErrorDoc>> = {
  validation_failed: {
    when: "the path, query (an undeclared parameter included), a header or the body breaks the schema; `details` lists every problem",
    message: "The request body is not valid",
    details: [{ path: "body.name", message: "Too small: expected string to have >=1 characters" }],
  },
  invalid_json: {
    when: "the body is not parsable JSON, not valid UTF-8, starts with a byte order mark, or ended early",
    message: "The request body is not valid JSON",
  },
  bad_request: {
    when: "the HTTP parser refused the request (unknown method, raw non-ASCII target, bad Content-Length, …); the connection closes",
    message: "Unknown request method (methods are case-sensitive: GET, not get)",
  },
  request_timeout: {
    when: "the request was not received in time; the connection closes",
    message: "The request was not received in time",
  },
  uri_too_long: {
    when: "the request target is longer than 8 KiB",
    message: "The request target is longer than 8192 bytes",
  },
  expectation_failed: {
    when: "`Expect` is anything but `100-continue`",
    message: 'Only Expect: 100-continue is supported (got "foo")',
  },
  headers_too_large: {
    when: "the request headers are larger than 16 KiB; the connection closes",
    message: "The request headers are larger than 16 KiB",
  },
  unauthorized: {
    when: "the X-API-Key header is missing, or names an unknown or revoked key",
    message: "An API key is required in the X-API-Key header",
  },
  forbidden: { when: "the key's role may not do this", message: "The customer role may not do this" },
  api_key_banned: {
    when: "the key kept calling while rate limited and is banned for a while (see Retry-After)",
    message: "This API key is banned for 900 more seconds",
  },
  not_found: {
    when: "nothing has this id (or, for a customer, the order is another key's)",
    message: "Pet 42 does not exist",
  },
  method_not_allowed: {
    when: "the path exists but not with this method (see Allow)",
    message: "PATCH is not allowed here; use GET, PUT, DELETE",
  },
  invalid_transition: {
    when: "the status change is not in the transition table",
    message: "A pet cannot move from sold to pending by an edit",
  },
  pet_has_open_orders: {
    when: "the pet still has open orders",
    message: "Pet 1 has open orders; complete or cancel them first",
  },
  pet_not_available: { when: "the pet's status is not `available`", message: "Pet 1 is pending, not available" },
  insufficient_stock: {
    when: "the stock is lower than the quantity ordered",
    message: "Pet 1 has fewer than 3 units in stock",
  },
  stock_limit_exceeded: {
    when: "the stock plus the units open orders hold would exceed 1,000,000",
    message: "Pet 1 has 3 units held by orders; its stock can be set to at most 999997",
  },
  category_name_taken: {
    when: "another category has this name (case-insensitive)",
    message: "A category named Dogs already exists",
  },
  category_in_use: {
    when: "pets still belong to the category",
    message: "Category 1 still has pets; move or delete them first",
  },
  last_admin_key: {
    when: "the key is the last active admin key: it cannot be revoked or lose the admin role",
    message: "API key 1 is the last active admin key; create another admin key first",
  },
  concurrent_update: {
    when: "other requests kept changing the key's settings while this change was applied (a retry applies it)",
    message: "API key 1 kept changing while this change was applied; try again",
  },
  order_completed: {
    when: "the order is completed and can no longer change",
    message: "Order 1 is complete and can no longer change",
  },
  idempotency_request_in_progress: {
    when: "a request with the same Idempotency-Key is still being processed",
    message: "A request with this Idempotency-Key is still being processed",
  },
  gone: {
    when: "the operation has reached its sunset date",
    message: "GET /pets/{petId} reached its sunset; use GET /pets?ids=…",
  },
  precondition_failed: {
    when: "the `If-Match` tag is not the resource's current one: it changed since it was read; nothing was changed",
    message: "The resource has changed since you read it (If-Match); read it again",
  },
  payload_too_large: {
    when: `the body is over ${BODY_LIMIT_BYTES} bytes`,
    message: `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes`,
  },
  unsupported_media_type: {
    when: "the body is not sent as `Content-Type: application/json`",
    message: "Send the body as Content-Type: application/json",
  },
  unknown_category: { when: "`categoryId` names no category", message: "Category 7 does not exist" },
  webhook_target_refused: {
    when: "the webhook URL is not http(s), or its host is or resolves to a private, loopback, link-local or metadata address",
    message: "The webhook host 10.0.0.7 is a private, loopback, link-local or reserved address",
  },
  unknown_pet: { when: "`petId` names no pet", message: "Pet 7 does not exist" },
  idempotency_key_reused: {
    when: "the Idempotency-Key was used before for a different request",
    message: "This Idempotency-Key was used for a different request",
  },
  rate_limited: {
    when: "a window of the plan is used up (see Retry-After); back off exponentially",
    message: "Rate limit exceeded; retry in 42 seconds",
  },
  internal_error: {
    when: "a fault on our side; nothing about it is disclosed",
    message: "Something went wrong on our side",
  },
  service_unavailable: { when: "the store is not answering (see Retry-After)", message: "The store is not answering" },
};

export const reasonPhrases: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  412: "Precondition Failed",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};
