import type { DomainEvent } from "../../core/events/domain-event.ts";

/**
 * An event's place in the outbox's order (time, then id) as one string: the fixed-width ISO time, a space, the id.
 * Strings compare as the order does (ids are ASCII `evt_…`), and no two events share one, so documents keyed by
 * their oldest event never tie.
 */
export const outboxKey = (event: DomainEvent): string => `${event.occurredAt.toISOString()} ${event.id}`;

/** The key of the oldest of these events (at least one). */
export const oldestKey = (events: readonly DomainEvent[]): string => {
  let oldest = outboxKey(events[0]!);
  for (const event of events) {
    const key = outboxKey(event);
    if (key < oldest) oldest = key;
  }
  return oldest;
};

/** oldestKey as an aggregation expression, on the document's own `outbox` (at least one event). */
export const oldestKeyInStore = {
  $min: {
    $map: {
      input: "$outbox",
      as: "e",
      in: {
        $concat: [
          { $dateToString: { date: "$$e.occurredAt", format: "%Y-%m-%dT%H:%M:%S.%LZ", timezone: "UTC" } },
          " ",
          "$$e.id",
        ],
      },
    },
  },
} as const;

/** True, as an aggregation expression, while the document's `outbox` holds an event (a missing one holds none). */
export const holdsEventsInStore = { $gt: [{ $size: { $ifNull: ["$outbox", []] } }, 0] } as const;
