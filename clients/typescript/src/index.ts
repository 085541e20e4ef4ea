export {
  createPetstoreClient,
  type ConditionalUpdate,
  type ListItem,
  type ListPath,
  type PetstoreClient,
  type PetstoreClientOptions,
  type UpdatablePath,
} from "./client.js";
export { errorCodes, isPetstoreError, PetstoreError, type ErrorCode, type PetstoreErrorBody } from "./errors.js";
export type { components, operations, paths } from "./generated/petstore-api.js";
export { nextLink } from "./paging.js";
export { retryAfterMs, type RetryOptions, type RetryReason, type RetryWait } from "./retry.js";
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from "./webhooks.js";
