import { describe, expect, it } from "vitest";
import { windowsAt } from "../../core/rate-limiting/windows.ts";

const limits = { perMinute: 60, perDay: 1_000 };
const at = (iso: string) => new Date(iso);

describe("windowsAt", () => {
  it("names each window by its start, whichever windows were asked for before (keys are kept per window)", () => {
    const first = windowsAt(at("2026-11-27T10:00:30.000Z"), limits);
    const sameMinute = windowsAt(at("2026-11-27T10:00:59.999Z"), limits);
    const nextMinute = windowsAt(at("2026-11-27T10:01:00.000Z"), limits);
    const nextDay = windowsAt(at("2026-11-28T00:00:00.000Z"), limits);
    const back = windowsAt(at("2026-11-27T10:00:30.000Z"), limits);

    expect(sameMinute.minute.key).toBe(first.minute.key);
    expect(nextMinute.minute.key).not.toBe(first.minute.key);
    expect(nextMinute.day.key).toBe(first.day.key);
    expect(nextDay.day.key).not.toBe(first.day.key);
    expect(back).toEqual(first);
    expect(first.minute).toEqual({
      key: `m${Date.parse("2026-11-27T10:00:00Z") / 60_000}`,
      limit: 60,
      resetsAt: at("2026-11-27T10:01:00.000Z"),
    });
    expect(nextDay.day).toEqual({
      key: `d${Date.parse("2026-11-28T00:00:00Z") / 86_400_000}`,
      limit: 1_000,
      resetsAt: at("2026-11-29T00:00:00.000Z"),
    });
  });
});
