export {
  createPetstoreClient,
  type CallOptions,
  type ConditionalUpdate,
  type ListItem,
  type ListPath,
  type PetstoreClient,
  type PetstoreClientOptions,
  type PetstoreMethod,
  type PetstorePaths,
  type UpdatablePath,
} from "./client.js";
export { errorCodes, isPetstoreError, PetstoreError, type ErrorCode, type PetstoreErrorBody } from "./errors.js";
export {
  PetstoreStreamEndedError,
  SseParser,
  type EventsOptions,
  type PetstoreEvent,
  type PetstoreEventBody,
  type PetstoreStreamItem,
  type PetstoreStreamReset,
  type SseMessage,
  type StreamEndReason,
} from "./events.js";
export type {
  components as adminComponents,
  operations as adminOperations,
  paths as adminPaths,
} from "./generated/petstore-admin-api.js";
export type { components, operations, paths } from "./generated/petstore-api.js";
export type * from "./schemas.js";
export { nextLink } from "./paging.js";
export {
  retryAfterMs,
  type AttemptOutcome,
  type PetstoreLogger,
  type RetryOptions,
  type RetryReason,
  type RetryWait,
} from "./retry.js";
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from "./webhooks.js";
