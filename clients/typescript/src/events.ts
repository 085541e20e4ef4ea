/**
 * `GET /events` as an async iterator: server-sent events read with fetch (EventSource cannot send `X-API-Key`),
 * resumed with `Last-Event-ID` after a dropped connection, with back-off on 429 and 503.
 */
import { errorToThrow } from "./errors.js";
import type { components } from "./generated/petstore-admin-api.js";
import { announceWait, DEFAULT_TIMEOUT_MS, delayBefore, eitherSignal, sleeper, type SendOptions } from "./retry.js";

type Schemas = components["schemas"];

/** The body of an event: what a webhook delivery of it carries, told apart by `type`. */
export type PetstoreEventBody =
  | Schemas["OrderPlacedEvent"]
  | Schemas["OrderCompletedEvent"]
  | Schemas["OrderCancelledEvent"]
  | Schemas["PetStatusChangedEvent"]
  | Schemas["InventoryChangedEvent"];

/** An event of the log: its id (its place in the log, the Last-Event-ID to resume after it) and its body. */
export type PetstoreEvent = { kind: "event"; id: string } & PetstoreEventBody;

/**
 * The service could not resume exactly after the id sent (`ahead`: an id it has not reached; `expired`: events
 * after it are no longer kept; `unknown_log`: an id of another log). The stream goes on after `from`; events in
 * between may be missing, so re-read what you keep.
 */
export interface PetstoreStreamReset {
  kind: "reset";
  reason: "ahead" | "expired" | "unknown_log" | (string & {});
  /** The Last-Event-ID that was sent. */
  lastEventId: string;
  /** Where the stream resumed instead: the id the client now resumes after. */
  from: string;
}

export type PetstoreStreamItem = PetstoreEvent | PetstoreStreamReset;

/** The reasons an `end` message gives after which reconnecting is useless. */
export type StreamEndReason = "key_revoked" | "key_banned" | "forbidden";

/** Thrown by `events()` when the service ends the stream for good: the key was revoked or banned, or may not read it. */
export class PetstoreStreamEndedError extends Error {
  readonly reason: StreamEndReason | (string & {});

  constructor(reason: string) {
    super(`the event stream was ended by the service: ${reason}`);
    this.name = "PetstoreStreamEndedError";
    this.reason = reason;
  }
}

export interface EventsOptions {
  /** Resume after this id (one an earlier stream gave). Without it, the stream starts with new events. */
  lastEventId?: string | undefined;
  /** Ends the iteration (it then throws the signal's reason). Breaking out of the loop ends it too. */
  signal?: AbortSignal | undefined;
  /**
   * Failed connection attempts in a row (429, 503, another 5xx, a network failure, a timeout) before the iterator
   * throws (default: no limit, as EventSource). A connection that opens resets the count.
   */
  maxRetries?: number | undefined;
  /**
   * Milliseconds without a byte (event or heartbeat) after which the connection is taken for dead and reopened
   * (default 45 000: the service sends a heartbeat after 15 s of quiet).
   */
  idleTimeout?: number | undefined;
  /**
   * Called each time a connection opens (the first one and every reconnect): from then on, every event the log
   * takes is delivered. A UI can show the stream as live.
   */
  onOpen?: ((open: { response: Response; lastEventId: string | undefined }) => void) | undefined;
}

/** What `events()` needs of its client. */
export interface EventsContext {
  url: string;
  headers: Headers;
  send: (request: Request) => Promise<Response>;
  options: SendOptions;
  signal: AbortSignal | undefined;
}

/** One message of the stream, as the SSE parser dispatches it. */
export interface SseMessage {
  event: string;
  data: string;
  /** The last event ID after this message (its own `id:`, or the one before). */
  id: string | undefined;
}

/**
 * A server-sent events parser (the WHATWG HTML "event stream interpretation"): feed it text, take whole messages.
 * `retry` holds the last valid `retry:` advice.
 */
export class SseParser {
  retry: number | undefined;
  lastEventId: string | undefined;
  #buffer = "";
  #event = "";
  #data: string[] = [];

  constructor(lastEventId?: string) {
    this.lastEventId = lastEventId;
  }

  /**
   * The messages completed by `text`, one by one: a change of `lastEventId` between two of them (a reset) holds
   * for the lines after. A line cut between two chunks waits for the rest.
   */
  *feed(text: string): Generator<SseMessage, void, undefined> {
    this.#buffer += text;
    const lines = this.#buffer.split(/\r\n|\r|\n/);
    // The last piece is a line not ended yet; a "\r" at the very end may be half of a "\r\n", so it waits too.
    this.#buffer = lines.pop() ?? "";
    if (this.#buffer === "" && text.endsWith("\r") && lines.length > 0) this.#buffer = `${lines.pop() ?? ""}\r`;
    for (const line of lines) {
      if (line === "") {
        const data = this.#data;
        const event = this.#event || "message";
        this.#event = "";
        this.#data = [];
        if (data.length > 0) yield { event, data: data.join("\n"), id: this.lastEventId };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") this.#event = value;
      else if (field === "data") this.#data.push(value);
      else if (field === "id" && !value.includes("\0")) this.lastEventId = value === "" ? undefined : value;
      else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    }
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** An error answer as the error to throw: the service's Error body as a PetstoreError. */
const refusal = async (response: Response): Promise<Error> => {
  const text = await response.text().catch(() => "");
  return errorToThrow(parseJson(text) ?? text, response);
};

const field = (value: unknown, name: string): string | undefined => {
  const v = value && typeof value === "object" ? (value as Record<string, unknown>)[name] : undefined;
  return typeof v === "string" ? v : undefined;
};

/** Why one connection stopped: the service ended it (with a reason), the body ended, or a read failed. */
type ConnectionEnd = { ended: string } | { dropped: unknown };

/** Reconnect after these `end` reasons (with Last-Event-ID); the others stop the iterator. */
const RECONNECT_REASONS = new Set(["max_lifetime", "shutting_down"]);

/** The stream's default `retry:` advice, until the service sends its own. */
const DEFAULT_RECONNECT_MS = 2_000;

/** GET /events, connection after connection; see EventsOptions and the client's `events()`. */
export async function* streamEvents(
  context: EventsContext,
  options: EventsOptions = {},
): AsyncGenerator<PetstoreStreamItem, void, undefined> {
  const send = context.options;
  const maxRetries = options.maxRetries ?? Infinity;
  const idleTimeout = options.idleTimeout ?? 45_000;
  const signal = options.signal ? eitherSignal(context.signal, options.signal) : context.signal;
  const sleep = sleeper(send);
  const parser = new SseParser(options.lastEventId);
  let failures = 0;
  let reconnectMs = DEFAULT_RECONNECT_MS;

  const wait = async (delayMs: number, reason: Parameters<typeof announceWait>[1]["reason"], status?: number) => {
    announceWait(send, {
      attempt: failures,
      delayMs,
      reason,
      status,
      method: "GET",
      url: context.url,
      idempotencyKey: undefined,
    });
    await sleep(delayMs, signal ?? new AbortController().signal);
  };

  for (;;) {
    signal?.throwIfAborted();
    const headers = new Headers(context.headers);
    headers.set("accept", "text/event-stream");
    if (parser.lastEventId !== undefined) headers.set("last-event-id", parser.lastEventId);
    // One controller per connection: the caller's signal, the idle timer and a `break` of the loop all end it.
    const connection = new AbortController();
    const connectionSignal = signal ? eitherSignal(signal, connection.signal) : connection.signal;
    // `timeout` bounds the wait for the answer's headers only: the stream itself is bounded by `idleTimeout`.
    const timeout = send.timeout ?? DEFAULT_TIMEOUT_MS;
    const connectTimer = setTimeout(
      () => connection.abort(new DOMException(`GET /events: no answer in ${timeout} ms`, "TimeoutError")),
      timeout,
    );
    let response: Response | undefined;
    let failure: unknown;
    try {
      response = await context.send(new Request(context.url, { headers, signal: connectionSignal }));
    } catch (error) {
      signal?.throwIfAborted();
      failure = error;
    } finally {
      clearTimeout(connectTimer);
    }

    if (response === undefined || response.status === 429 || response.status >= 500) {
      failures++;
      if (failures > maxRetries) {
        if (response === undefined) throw failure;
        throw await refusal(response);
      }
      response?.body?.cancel().catch(() => undefined);
      const { delayMs, reason } = delayBefore(response, failures, send);
      await wait(delayMs, reason, response?.status);
      continue;
    }
    if (!response.ok || !response.body) throw await refusal(response);
    failures = 0;
    options.onOpen?.({ response, lastEventId: parser.lastEventId });

    let end: ConnectionEnd | undefined;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let idle: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(
        () => connection.abort(new Error(`no byte from GET /events for ${idleTimeout} ms`)),
        idleTimeout,
      );
    };
    try {
      armIdle();
      while (end === undefined) {
        let chunk: ReadableStreamReadResult<string>;
        try {
          chunk = await reader.read();
        } catch (error) {
          signal?.throwIfAborted();
          end = { dropped: error };
          break;
        }
        if (chunk.done) {
          end = { dropped: undefined };
          break;
        }
        armIdle();
        for (const message of parser.feed(chunk.value)) {
          const body = parseJson(message.data);
          if (message.event === "end") {
            end = { ended: field(body, "reason") ?? "unknown" };
            break;
          }
          if (message.event === "reset") {
            const from = field(body, "from");
            if (from !== undefined) parser.lastEventId = from;
            yield {
              kind: "reset",
              reason: field(body, "reason") ?? "unknown",
              lastEventId: field(body, "lastEventId") ?? "",
              from: from ?? parser.lastEventId ?? "",
            };
            continue;
          }
          // Only the log's events (a body with its type); anything else a newer service sends is skipped.
          if (field(body, "type") === undefined || message.id === undefined) continue;
          // Stopping in the middle of a chunk is safe: the generator resumes here, and `break` cancels below.
          yield { kind: "event", id: message.id, ...(body as PetstoreEventBody) };
        }
      }
    } finally {
      clearTimeout(idle);
      connection.abort();
      reader.cancel().catch(() => undefined);
    }

    reconnectMs = parser.retry ?? reconnectMs;
    if ("ended" in end) {
      if (!RECONNECT_REASONS.has(end.ended)) throw new PetstoreStreamEndedError(end.ended);
      // The connection lived its time: the same service takes the next one at once.
      if (end.ended === "max_lifetime") continue;
    }
    await wait(reconnectMs, "reconnect");
  }
}
