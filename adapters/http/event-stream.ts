import type { LoggedEvent } from "../../core/events/event-log.port.ts";
import type { FollowEvents } from "../../core/events/follow-events.ts";

export interface EventStreamSettings {
  /** How often a caught-up stream asks the log for more. */
  pollMs: number;
  /** A comment line after this long without a write, so proxies and clients see the connection alive. */
  heartbeatMs: number;
  /** The `retry:` advice: how long a client waits before reconnecting. */
  retryMs: number;
}

export const defaultEventStreamSettings: EventStreamSettings = { pollMs: 250, heartbeatMs: 15_000, retryMs: 2_000 };

/** Events per read of the log. */
const PAGE = 100;

const encoder = new TextEncoder();

/** One server-sent event: its log position as the id, its type as the event name, the webhook body as data. */
export const sseMessage = (event: LoggedEvent): string =>
  `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data })}\n\n`;

/**
 * The body of `GET /events`: events after `from` as they reach the shared log, heartbeats while nothing happens,
 * ended when the process starts draining (clients reconnect elsewhere, after `retry`, with Last-Event-ID) or when
 * the log cannot be read. Pulled: the log is read again only once the client has taken the previous page, so a
 * slow client is never buffered for, and a reader that is behind catches up page after page without waiting.
 */
export const eventStream = (
  follow: FollowEvents,
  from: number,
  settings: EventStreamSettings,
  draining: () => boolean,
): ReadableStream<Uint8Array<ArrayBuffer>> => {
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
  let quietSince = Date.now();
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(`retry: ${settings.retryMs}\n: connected\n\n`));
      },
      async pull(controller) {
        const send = (text: string) => controller.enqueue(encoder.encode(text));
        while (!stopped) {
          if (draining()) {
            send(": the server is stopping; reconnect with Last-Event-ID\n\n");
            controller.close();
            return;
          }
          let page;
          try {
            page = await follow.read(position, PAGE);
          } catch {
            // The log could not be read (the store is away): end the stream; the client resumes after `retry`.
            if (!stopped) controller.close();
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
        wake?.();
      },
    },
    { highWaterMark: 1 },
  );
};
