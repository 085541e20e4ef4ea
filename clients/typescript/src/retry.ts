/**
 * The back-off and safe retries, as a `fetch` that openapi-fetch calls once per logical call and that may send the
 * request several times: after a 429, which the service answers before acting, whatever the method; after a 503,
 * a 409 `idempotency_request_in_progress` or a network failure only when the request is safe to repeat (a method
 * idempotent by definition, or a POST carrying an Idempotency-Key, the only method the service keys).
 */

export interface RetryOptions {
  /** Attempts in all, the first one included (default 4). 1 turns retries off. The client's `maxRetries` wins. */
  maxAttempts?: number;
  /** The call gives up rather than wait beyond this many milliseconds after it began (default 60 000). */
  maxElapsedMs?: number;
  /** The exponential back-off's first ceiling: attempt n waits a random time in [0, base · 2^(n-1)) (default 500). */
  baseDelayMs?: number;
  /** The exponential back-off's largest ceiling (default 20 000). Retry-After and X-RateLimit-Reset are not capped. */
  maxDelayMs?: number;
  /** Called before each wait, so a UI can show it. */
  onRetry?: ((wait: RetryWait) => void) | undefined;
  /** Random numbers in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  /** Milliseconds since the epoch (default Date.now): the clock for Retry-After dates, X-RateLimit-Reset and the total-time cap. */
  now?: () => number;
  /** Waits `ms` or until `signal` aborts, then rejects with its reason (default: a timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type RetryReason = "retry-after" | "rate-limit-reset" | "backoff" | "reconnect";

export interface RetryWait {
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /**
   * Where the delay came from: the Retry-After header, the X-RateLimit-Reset header, the exponential back-off, or
   * (for `events()` after a stream ended) the stream's `retry:` advice.
   */
  reason: RetryReason;
  /** The answer's status, or undefined after a network failure. */
  status: number | undefined;
  method: string;
  url: string;
  /** The Idempotency-Key sent on every attempt, if any. */
  idempotencyKey: string | undefined;
}

/** What one attempt came to: seen by `onAttempt`, after every attempt, the last one included. */
export interface AttemptOutcome {
  /** From 1. */
  attempt: number;
  /** The attempts this call may make in all. */
  maxAttempts: number;
  method: string;
  url: string;
  /** The answer's status, or undefined when the attempt failed (network, timeout, cancel). */
  status: number | undefined;
  /** Why the attempt failed, when it did. */
  error: unknown;
  /** From sending to the answer's headers, or to the failure. */
  durationMs: number;
  /** Whether the client will try again (after a wait that `onRetry` sees). */
  willRetry: boolean;
}

/** Where the client writes its warnings: a wait of over a second, which would otherwise look like a hang. */
export interface PetstoreLogger {
  warn(message: string): void;
}

/** Everything that shapes how a call is sent: RetryOptions, and the client's or the call's own settings. */
export interface SendOptions extends RetryOptions {
  /** Milliseconds an attempt may take, its answer's body included, before it is abandoned (default 60 000). */
  timeout?: number | undefined;
  /** Sees every attempt's outcome. */
  onAttempt?: ((outcome: AttemptOutcome) => void) | undefined;
  /** One `warn` line per wait of over a second (default console; false for none). */
  logger?: PetstoreLogger | false | undefined;
}

/** The one line the logger gets for a wait of over a second. */
export const describeWait = (wait: RetryWait, maxAttempts?: number): string => {
  const seconds = Math.round(wait.delayMs / 100) / 10;
  if (wait.reason === "reconnect")
    return `@petstore/client: ${wait.method} ${wait.url} ended; reconnecting in ${seconds} s`;
  const what = wait.status === undefined ? "failed" : `answered ${wait.status}`;
  const next = maxAttempts === undefined ? "" : ` before attempt ${wait.attempt + 1} of ${maxAttempts}`;
  return `@petstore/client: ${wait.method} ${wait.url} ${what}; waiting ${seconds} s (${wait.reason})${next}`;
};

/** Tells the caller's hook and, for a wait of over a second, the logger. */
export const announceWait = (options: SendOptions, wait: RetryWait, maxAttempts?: number): void => {
  options.onRetry?.(wait);
  const logger = options.logger === undefined ? globalThis.console : options.logger;
  if (logger && wait.delayMs > 1000) logger.warn(describeWait(wait, maxAttempts));
};

/** The client's default for `timeout`. */
export const DEFAULT_TIMEOUT_MS = 60_000;

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

/** Retry-After: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export const retryAfterMs = (value: string | null, now: number): number | undefined => {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/** X-RateLimit-Reset: the Unix time, in seconds, when the window resets. */
const resetMs = (value: string | null, now: number): number | undefined => {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Math.max(0, Number(value) * 1000 - now);
};

/** Whether a response is worth another attempt: limited; or, for a repeatable request, busy or its key's first request still running. */
const retryableStatus = async (response: Response, repeatable: boolean): Promise<boolean> => {
  if (response.status === 429) return true;
  if (!repeatable) return false;
  if (response.status === 503) return true;
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { code?: unknown };
    return body.code === "idempotency_request_in_progress";
  } catch {
    return false;
  }
};

/** AbortSignal.any where it exists (Node 20.3+, current browsers), else a signal that follows both. */
export const eitherSignal = (a: AbortSignal | undefined, b: AbortSignal): AbortSignal => {
  if (!a) return b;
  if (typeof AbortSignal.any === "function") return AbortSignal.any([a, b]);
  const controller = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
};

/** How long to wait before attempt `attempt + 1`: Retry-After, else X-RateLimit-Reset, else jittered back-off. */
export const delayBefore = (
  response: Response | undefined,
  attempt: number,
  options: RetryOptions,
): { delayMs: number; reason: RetryReason } => {
  const at = (options.now ?? Date.now)();
  const fromRetryAfter = response && retryAfterMs(response.headers.get("retry-after"), at);
  if (fromRetryAfter !== undefined) return { delayMs: fromRetryAfter, reason: "retry-after" };
  const fromReset = response && resetMs(response.headers.get("x-ratelimit-reset"), at);
  if (fromReset !== undefined) return { delayMs: fromReset, reason: "rate-limit-reset" };
  // Full jitter (a random time up to the exponential ceiling) spreads clients that failed together.
  const ceiling = Math.min(options.maxDelayMs ?? 20_000, (options.baseDelayMs ?? 500) * 2 ** (attempt - 1));
  return { delayMs: Math.floor((options.random ?? Math.random)() * ceiling), reason: "backoff" };
};

/** Waits `ms` or until `signal` aborts, as the options say. */
export const sleeper = (options: RetryOptions) => options.sleep ?? defaultSleep;

/**
 * A fetch that retries as RetryOptions say. `signal` (the client's) and the request's own signal both cancel the
 * call, during an attempt or a wait. After the last allowed attempt, the last answer is returned as it came.
 */
export const retryingFetch = (
  fetchImpl: (request: Request) => Promise<Response>,
  options: SendOptions = {},
  signal?: AbortSignal,
): ((request: Request) => Promise<Response>) => {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const maxElapsedMs = options.maxElapsedMs ?? 60_000;
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const sleep = sleeper(options);

  return async (request) => {
    const started = now();
    const callSignal = eitherSignal(signal, request.signal);
    const idempotencyKey = request.headers.get("idempotency-key") ?? undefined;
    const repeatable =
      IDEMPOTENT_METHODS.has(request.method) || (request.method === "POST" && idempotencyKey !== undefined);
    for (let attempt = 1; ; attempt++) {
      callSignal.throwIfAborted();
      const last = attempt >= maxAttempts;
      let response: Response | undefined;
      let failure: unknown;
      const sent = now();
      // Unref'd in Node: an attempt's timer never keeps a process alive.
      const attemptSignal = eitherSignal(callSignal, AbortSignal.timeout(timeout));
      try {
        // A clone per attempt: a body can be read once, and the original must stay unread for the next one.
        response = await fetchImpl(new Request(last ? request : request.clone(), { signal: attemptSignal }));
      } catch (error) {
        failure = error;
      }
      // An abort is the caller's decision, not a failure to retry; neither is a failure of a request that may have
      // acted. A timeout is a failure like a network one.
      let retrying =
        !last &&
        (response === undefined ? !callSignal.aborted && repeatable : await retryableStatus(response, repeatable));
      const { delayMs, reason }: { delayMs: number; reason: RetryReason } = retrying
        ? delayBefore(response, attempt, options)
        : { delayMs: 0, reason: "backoff" };
      // No wait that would end beyond maxElapsedMs.
      if (retrying && now() + delayMs - started > maxElapsedMs) retrying = false;
      options.onAttempt?.({
        attempt,
        maxAttempts,
        method: request.method,
        url: request.url,
        status: response?.status,
        error: failure,
        durationMs: now() - sent,
        willRetry: retrying,
      });
      if (!retrying) {
        if (response) return response;
        throw failure;
      }
      // The answer that is not returned is not read: release its connection (not awaited: a cancel of a teed
      // body, as after a clone, settles only when every branch is cancelled).
      response?.body?.cancel().catch(() => undefined);
      announceWait(
        options,
        {
          attempt,
          delayMs,
          reason,
          status: response?.status,
          method: request.method,
          url: request.url,
          idempotencyKey,
        },
        maxAttempts,
      );
      await sleep(delayMs, callSignal);
    }
  };
};
