import { z } from "zod";
import { EVENT_LOG_RETENTION_MS } from "../../../core/events/event-log.port.ts";
import { DomainError } from "../../../core/shared/domain-error.ts";
import { webhookEventTypes } from "../../../core/webhooks/webhook-event.ts";
import { eventStream } from "../event-stream.ts";
import { Reply, route } from "../route.ts";

const retentionHours = EVENT_LOG_RETENTION_MS / 3_600_000;

const LastEventId = z
  .string()
  .regex(/^(0|[1-9]\d{0,15})$/, "Expected the id of an event this stream sent (a whole number)")
  .refine((id) => Number.isSafeInteger(Number(id)), "Expected an id of at most 2^53 - 1 (9007199254740991)")
  .transform(Number)
  .optional()
  .meta({
    description:
      "Resume after this event: the `id` of the last message received (browsers' EventSource sends it when it reconnects). `0` replays every event kept. Without it the stream starts with the next event. An id the stream cannot resume after exactly gets a first `reset` event.",
  });

const capMessage = { key: "this API key", address: "this client address" } as const;

const eventTypes = webhookEventTypes.map((type) => `\`${type}\``).join(", ");

export const eventRoutes = [
  route({
    method: "GET",
    path: "/events",
    operationId: "streamEvents",
    tag: "Events",
    summary: "Stream events (server-sent events)",
    description: [
      `The webhook events (${eventTypes}) as \`text/event-stream\`, as they happen in any instance of the service: every instance reads the shared event log.`,
      "Each message has `id` (its place in the log), `event` (its type) and `data` (the webhook body: `type`, `timestamp`, `data`).",
      `Resume after a reconnect with \`Last-Event-ID\`: no gaps and no repeats while the events are kept (${retentionHours} hours; on the memory store also at most the newest 10,000).`,
      "The stream starts with `retry:` advice (milliseconds before reconnecting), sends a comment line (`: heartbeat`) after 15 seconds without an event.",
      'When `Last-Event-ID` cannot be resumed after exactly (beyond the log\'s end: `ahead`; older than what is kept: `expired`; from another log, such as a memory store before a restart: `unknown_log`), the first event is `event: reset` with `data: {"reason":…,"lastEventId":"<as sent>","from":"<id>"}` and no `id:`: the events that follow are those after `from`.',
      'The key is checked again while the stream is open (within a second or two, on every instance): a stream whose key is revoked, banned or no longer staff ends. A stream lives at most an hour (`PETSTORE_EVENTS_MAX_LIFETIME_SECONDS`), and ends when the instance starts stopping. Each ending sends a last `event: end` with `data: {"reason":"key_revoked"|"key_banned"|"forbidden"|"max_lifetime"|"shutting_down"}`; reconnect with `Last-Event-ID` after `max_lifetime` and `shutting_down`, not after the others.',
      "Open streams are capped per key and per client address on each instance (`PETSTORE_EVENTS_MAX_STREAMS_PER_KEY`, `PETSTORE_EVENTS_MAX_STREAMS_PER_ADDRESS`): one more is refused with 429 `rate_limited` and `Retry-After`.",
      "Opening the stream counts one request against the key's rate limit.",
    ].join("\n\n"),
    access: "events:read",
    input: { headers: z.object({ "Last-Event-ID": LastEventId }) },
    output: {
      status: 200,
      description: "The stream; it stays open.",
      body: z.string(),
      mediaType: "text/event-stream",
    },
    errors: ["service_unavailable"],
    hideTryItPanel: {
      reason:
        "The answer is a stream that stays open, and the reference page shows an answer only once it has ended. " +
        "Follow it with `curl -N` or an `EventSource`.",
    },
    handle: async ({ headers, clientAddress }, actor, { useCases, events, streams, draining }) => {
      if (draining()) throw new DomainError("service_unavailable", "This instance is stopping; reconnect", 1);
      const release = streams.open(actor.keyId, clientAddress);
      if (typeof release === "string") {
        const retryAfter = Math.max(1, Math.ceil(events.retryMs / 1000));
        throw new DomainError(
          "rate_limited",
          `Too many event streams open for ${capMessage[release]}; close one and retry`,
          retryAfter,
        );
      }
      const lastEventId = headers["Last-Event-ID"];
      let start;
      try {
        start = await useCases.followEvents.execute(lastEventId);
      } catch (error) {
        release();
        throw error;
      }
      return new Reply({
        stream: {
          body: eventStream({
            follow: useCases.followEvents,
            from: start.from,
            reset: start.reset && lastEventId !== undefined ? { reason: start.reset, lastEventId } : undefined,
            settings: events,
            draining,
            standing: () => useCases.checkKeyStanding.execute(actor, "events:read"),
            release,
          }),
          contentType: "text/event-stream; charset=utf-8",
        },
        headers: { "cache-control": "no-store", "x-accel-buffering": "no" },
      });
    },
  }),
];
