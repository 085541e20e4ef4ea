import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Runs a callback in the async context of this module's loading, at start-up, which no request is part of.
 * Background timers (the webhook worker's, recovery's) may be armed from within a request (a write that records
 * events wakes the worker): their work must never join that request's context, its trace included
 * (docs/operations.md#tracing).
 */
export const outsideRequests: <R>(run: () => R) => R = AsyncLocalStorage.snapshot();
