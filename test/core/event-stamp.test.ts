import { describe, expect, it } from "vitest";
import { stampEvent } from "../../core/events/event-stamp.ts";

const at = new Date("2026-11-23T12:00:00Z");
const data = { id: 1, petId: 1, quantity: 1, complete: false };

describe("stampEvent", () => {
  it("gives ids that sort in the order they were stamped and never repeat", () => {
    const ids = Array.from({ length: 5_000 }, () => stampEvent(at, "order.placed", data).id);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{12}[0-9a-f]{6}[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The tail is this process's, drawn once: within it, the time and the sequence keep ids apart.
    expect(new Set(ids.map((id) => id.slice(-16))).size).toBe(1);
  });

  it("writes each event's own time into its id, whatever the time of the one stamped before", () => {
    const times = [
      "2026-11-23T12:00:00.000Z",
      "2026-11-23T12:00:00.000Z",
      "2026-11-23T12:00:00.001Z",
      "2026-11-23T11:59:59.999Z",
      "2040-01-01T00:00:00.000Z",
    ];
    for (const iso of times) {
      const event = stampEvent(new Date(iso), "order.placed", data);
      expect(event.id.slice(4, 16)).toBe(Date.parse(iso).toString(16).padStart(12, "0"));
      expect(event.occurredAt).toEqual(new Date(iso));
    }
  });
});
