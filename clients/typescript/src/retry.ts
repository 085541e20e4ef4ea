/**
 * The back-off and safe retries, as a `fetch` that openapi-fetch calls once per logical call and that may send the
 * request several times: after a 429, which the service answers before acting, whatever the method; after a 503,
 * a 409 `idempotency_request_in_progress` or a network failure only when the request is safe to repeat (a method
 * idempotent by definition, or a POST carrying an Idempotency-Key, the only method the service keys).
 */

export interface RetryOptions {
  /** Attempts in all, the first one included (default 4). 1 turns retries off. */
  maxAttempts?: number;
  /** The call gives up rather than wait beyond this many milliseconds after it began (default 60 000). */
  maxElapsedMs?: number;
  /** The exponential back-off's first ceiling: attempt n waits a random time in [0, base · 2^(n-1)) (default 500). */
  baseDelayMs?: number;
  /** The exponential back-off's largest ceiling (default 20 000). Retry-After and X-RateLimit-Reset are not capped. */
  maxDelayMs?: number;
  /** Called before each wait, so a UI can show it. */
  onRetry?: (wait: RetryWait) => void;
  /** Random numbers in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  /** Milliseconds since the epoch (default Date.now): the clock for Retry-After dates, X-RateLimit-Reset and the total-time cap. */
  now?: () => number;
  /** Waits `ms` or until `signal` aborts, then rejects with its reason (default: a timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type RetryReason = "retry-after" | "rate-limit-reset" | "backoff";

export interface RetryWait {
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** Where the delay came from: the Retry-After header, the X-RateLimit-Reset header, or the exponential back-off. */
  reason: RetryReason;
  /** The answer's status, or undefined after a network failure. */
  status: number | undefined;
  method: string;
  url: string;
  /** The Idempotency-Key sent on every attempt, if any. */
  idempotencyKey: string | undefined;
}

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
const eitherSignal = (a: AbortSignal | undefined, b: AbortSignal): AbortSignal => {
  if (!a) return b;
  if (typeof AbortSignal.any === "function") return AbortSignal.any([a, b]);
  const controller = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
};

/**
 * A fetch that retries as RetryOptions say. `signal` (the client's) and the request's own signal both cancel the
 * call, during an attempt or a wait. After the last allowed attempt, the last answer is returned as it came.
 */
export const retryingFetch = (
  fetchImpl: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
  signal?: AbortSignal,
): ((request: Request) => Promise<Response>) => {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const maxElapsedMs = options.maxElapsedMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 20_000;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;

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
      try {
        // A clone per attempt: a body can be read once, and the original must stay unread for the next one.
        response = await fetchImpl(new Request(last ? request : request.clone(), { signal: callSignal }));
      } catch (error) {
        // An abort is the caller's decision, not a failure to retry; neither is a failure of the last attempt, nor
        // one of a request that may have acted.
        if (callSignal.aborted || last || !repeatable) throw error;
        failure = error;
      }
      if (response !== undefined && (last || !(await retryableStatus(response, repeatable)))) return response;

      const at = now();
      const fromRetryAfter = response && retryAfterMs(response.headers.get("retry-after"), at);
      const fromReset =
        response && fromRetryAfter === undefined ? resetMs(response.headers.get("x-ratelimit-reset"), at) : undefined;
      const reason: RetryReason =
        fromRetryAfter !== undefined ? "retry-after" : fromReset !== undefined ? "rate-limit-reset" : "backoff";
      // Full jitter (a random time up to the exponential ceiling) spreads clients that failed together.
      const delayMs =
        fromRetryAfter ?? fromReset ?? Math.floor(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
      if (at + delayMs - started > maxElapsedMs) {
        if (response) return response;
        throw failure;
      }
      // The answer that is not returned is not read: release its connection (not awaited: a cancel of a teed
      // body, as after a clone, settles only when every branch is cancelled).
      response?.body?.cancel().catch(() => undefined);
      options.onRetry?.({
        attempt,
        delayMs,
        reason,
        status: response?.status,
        method: request.method,
        url: request.url,
        idempotencyKey,
      });
      await sleep(delayMs, callSignal);
    }
  };
};
