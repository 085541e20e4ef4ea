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
  .transform(Number)
  .optional()
  .meta({
    description:
      "Resume after this event: the `id` of the last message received (browsers' EventSource sends it when it reconnects). `0` replays every event kept. Without it the stream starts with the next event.",
  });

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
      "The stream starts with `retry:` advice (milliseconds before reconnecting), sends a comment line (`: heartbeat`) after 15 seconds without an event, and ends when the instance starts stopping (reconnect then).",
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
    hideTryItPanel: true,
    handle: async ({ headers }, _actor, { useCases, events, draining }) => {
      if (draining()) throw new DomainError("service_unavailable", "This instance is stopping; reconnect", 1);
      const from = await useCases.followEvents.execute(headers["Last-Event-ID"]);
      return new Reply({
        stream: {
          body: eventStream(useCases.followEvents, from, events, draining),
          contentType: "text/event-stream; charset=utf-8",
        },
        headers: { "cache-control": "no-store", "x-accel-buffering": "no" },
      });
    },
  }),
];
