import type { KeyStandingLoss } from "../../core/access/check-key-standing.ts";
import type { LoggedEvent } from "../../core/events/event-log.port.ts";
import type { FollowEvents, ResetReason } from "../../core/events/follow-events.ts";

export interface EventStreamSettings {
  /** How often a caught-up stream asks the log for more (and checks its key again). */
  pollMs: number;
  /** A comment line after this long without a write, so proxies and clients see the connection alive. */
  heartbeatMs: number;
  /** The `retry:` advice: how long a client waits before reconnecting. */
  retryMs: number;
  /** How long one stream stays open before it ends (`max_lifetime`): the client reconnects and is authorized again. */
  maxLifetimeMs: number;
  /** Streams open at once on this instance, per API key and per client address. */
  maxPerKey: number;
  maxPerAddress: number;
}

export const defaultEventStreamSettings: EventStreamSettings = {
  pollMs: 250,
  heartbeatMs: 15_000,
  retryMs: 2_000,
  maxLifetimeMs: 3_600_000,
  maxPerKey: 20,
  maxPerAddress: 50,
};

/** Why a stream ends, in its last message: after the last two the client reconnects, after the others it stops. */
export type EndReason = KeyStandingLoss | "max_lifetime" | "shutting_down";

/** Events per read of the log. */
const PAGE = 100;

const encoder = new TextEncoder();

/** One server-sent event: its log position as the id, its type as the event name, the webhook body as data. */
export const sseMessage = (event: LoggedEvent): string =>
  `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data })}\n\n`;

/** The stream could not resume where the client asked: where it stands now. No `id:`, so the client's stays. */
export const resetMessage = (reason: ResetReason, lastEventId: number, from: number): string =>
  `event: reset\ndata: ${JSON.stringify({ reason, lastEventId: String(lastEventId), from: String(from) })}\n\n`;

export const endMessage = (reason: EndReason): string => `event: end\ndata: ${JSON.stringify({ reason })}\n\n`;

/** Which cap refused a stream. */
export type StreamCap = "key" | "address";

/**
 * The streams open on this instance, counted per key and per client address (only those with a stream are in the
 * maps). `onChange` hears the total (the open-streams gauge).
 */
export class OpenStreams {
  readonly #byKey = new Map<number, number>();
  readonly #byAddress = new Map<string, number>();
  readonly #limits: Pick<EventStreamSettings, "maxPerKey" | "maxPerAddress">;
  readonly #onChange: ((open: number) => void) | undefined;
  #open = 0;

  constructor(limits: Pick<EventStreamSettings, "maxPerKey" | "maxPerAddress">, onChange?: (open: number) => void) {
    this.#limits = limits;
    this.#onChange = onChange;
  }

  get size(): number {
    return this.#open;
  }

  /** A release (call it once the stream ends; later calls do nothing), or the cap that is full. */
  open(keyId: number, address: string): (() => void) | StreamCap {
    const ofKey = this.#byKey.get(keyId) ?? 0;
    if (ofKey >= this.#limits.maxPerKey) return "key";
    const ofAddress = this.#byAddress.get(address) ?? 0;
    if (ofAddress >= this.#limits.maxPerAddress) return "address";
    this.#byKey.set(keyId, ofKey + 1);
    this.#byAddress.set(address, ofAddress + 1);
    this.#changed(1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      less(this.#byKey, keyId);
      less(this.#byAddress, address);
      this.#changed(-1);
    };
  }

  #changed(delta: number): void {
    this.#open += delta;
    this.#onChange?.(this.#open);
  }
}

const less = <K>(counts: Map<K, number>, key: K): void => {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
};

export interface EventStreamOptions {
  follow: FollowEvents;
  /** The stream sends the events after this position. */
  from: number;
  /** Sent first when the stream could not start where the client asked. */
  reset?: { reason: ResetReason; lastEventId: number } | undefined;
  settings: EventStreamSettings;
  draining: () => boolean;
  /** Whether the key may still read: checked before every read of the log. */
  standing: () => Promise<KeyStandingLoss | undefined>;
  /** Called once when the stream ends, whoever ends it. */
  release: () => void;
}

/**
 * The body of `GET /events`: events after `from` as they reach the shared log, heartbeats while nothing happens.
 * It ends with an `end` event when its key is revoked, banned or demoted, when it has lived its maximum lifetime, or
 * when the process starts draining (clients reconnect, after `retry`, with Last-Event-ID); and without one when the
 * log or the key cannot be read (the store is away). Pulled: the log is read again only once the client has taken
 * the previous page, so a slow client is never buffered for, and a reader that is behind catches up page after page
 * without waiting. Nothing is sent before the key is checked again.
 */
export const eventStream = ({
  follow,
  from,
  reset,
  settings,
  draining,
  standing,
  release,
}: EventStreamOptions): ReadableStream<Uint8Array<ArrayBuffer>> => {
  let stopped = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  let position = from;
  const openedAt = Date.now();
  let quietSince = openedAt;
  const endReason = async (): Promise<EndReason | undefined> => {
    if (draining()) return "shutting_down";
    if (Date.now() - openedAt >= settings.maxLifetimeMs) return "max_lifetime";
    return await standing();
  };
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        const preface = `retry: ${settings.retryMs}\n: connected\n\n`;
        const first = reset ? resetMessage(reset.reason, reset.lastEventId, from) : "";
        controller.enqueue(encoder.encode(preface + first));
      },
      async pull(controller) {
        const send = (text: string) => controller.enqueue(encoder.encode(text));
        const close = () => {
          stopped = true;
          release();
          controller.close();
        };
        while (!stopped) {
          let page;
          try {
            const reason = await endReason();
            if (stopped) return;
            if (reason) {
              send(endMessage(reason));
              close();
              return;
            }
            page = await follow.read(position, PAGE);
          } catch {
            // The log or the key could not be read (the store is away): end the stream; the client resumes after
            // `retry`, and is admitted again.
            if (!stopped) close();
            return;
          }
          if (stopped) return;
          position = page.last;
          if (page.events.length > 0) {
            send(page.events.map(sseMessage).join(""));
            quietSince = Date.now();
            return;
          }
          if (Date.now() - quietSince >= settings.heartbeatMs) {
            send(": heartbeat\n\n");
            quietSince = Date.now();
            return;
          }
          await pause(settings.pollMs);
        }
      },
      cancel() {
        stopped = true;
        release();
        wake?.();
      },
    },
    { highWaterMark: 1 },
  );
};
