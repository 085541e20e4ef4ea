import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { EventLog, LoggedEvent } from "../../core/events/event-log.port.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { at } from "./mothers.ts";

const event = (n: number): DomainEvent => ({
  id: `evt_${String(n).padStart(6, "0")}`,
  type: "inventory.changed",
  occurredAt: at(`2026-11-21T12:00:${String(n % 60).padStart(2, "0")}.000Z`),
  data: { petId: n, delta: -1 },
});

/** Every event from `after` on, page by page as a reader resumes: each page starts after the last one's `last`. */
const readAll = async (log: EventLog, pageSize: number, after = 0): Promise<LoggedEvent[]> => {
  const all: LoggedEvent[] = [];
  for (let position = after; ;) {
    const page = await log.readAfter(position, pageSize);
    expect(page.last).toBeGreaterThanOrEqual(position);
    all.push(...page.events);
    if (page.last === position) return all;
    position = page.last;
  }
};

const withoutPosition = ({ position: _, ...rest }: LoggedEvent): DomainEvent => rest as DomainEvent;

export const eventLogContract = (harness: ContractHarness): void => {
  describe(`EventLog contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const log = () => stores().eventLog;

    it("reads nothing from an empty log, and stays where it was", async () => {
      expect(await log().readAfter(0, 10)).toEqual({ events: [], last: 0 });
    });

    it("tells its bounds: the oldest position kept and the last handed out, above its origin", async () => {
      const empty = await log().bounds();
      expect(empty.oldest).toBe(empty.end + 1);
      expect(empty.end).toBeGreaterThanOrEqual(empty.origin);
      await log().append([event(1), event(2), event(3)]);

      const positions = (await log().readAfter(0, 10)).events.map((e) => e.position);
      const bounds = await log().bounds();
      expect(bounds).toEqual({ origin: empty.origin, oldest: positions[0], end: positions[2] });
      expect(bounds.origin).toBeLessThan(bounds.oldest);
    });

    it("gives back what was appended, in the order appended, at increasing positions", async () => {
      await log().append([event(3), event(1)]);
      await log().append([event(2)]);

      const page = await log().readAfter(0, 10);
      expect(page.events.map(withoutPosition)).toEqual([event(3), event(1), event(2)]);
      const positions = page.events.map((e) => e.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(3);
      expect(positions[0]).toBeGreaterThan(0);
      expect(page.last).toBe(positions[2]);
    });

    it("resumes after `last`: later events only, none twice, at most `limit` a read", async () => {
      await log().append([1, 2, 3, 4, 5].map(event));
      const first = await log().readAfter(0, 2);
      expect(first.events.map((e) => e.id)).toEqual([event(1).id, event(2).id]);
      await log().append([event(6)]);

      const rest = await readAll(log(), 2, first.last);
      expect(rest.map((e) => e.id)).toEqual([3, 4, 5, 6].map((n) => event(n).id));
      expect(await log().readAfter(rest.at(-1)!.position, 10)).toEqual({ events: [], last: rest.at(-1)!.position });
    });

    it("keeps an event appended twice once, and a reader is not held up by the second append", async () => {
      await log().append([event(1), event(2)]);
      await log().append([event(2), event(3)]);
      await log().append([event(1)]);
      await log().append([event(4)]);

      expect((await readAll(log(), 10)).map((e) => e.id)).toEqual([1, 2, 3, 4].map((n) => event(n).id));
      expect((await readAll(log(), 1)).map((e) => e.id)).toEqual([1, 2, 3, 4].map((n) => event(n).id));
    });

    it("keeps each event once when two instances append the same batches at once", async () => {
      const other = harness.sibling?.().eventLog ?? log();
      const batches = [0, 1, 2, 3].map((b) => Array.from({ length: 10 }, (_, i) => event(b * 10 + i + 1)));
      await Promise.all(batches.flatMap((batch) => [log().append(batch), other.append(batch)]));

      const read = await readAll(log(), 7);
      expect(read.map((e) => e.id).sort()).toEqual(
        batches
          .flat()
          .map((e) => e.id)
          .sort(),
      );
    });

    it("a reader that reads on while two instances append sees each event once, at increasing positions", async () => {
      const other = harness.sibling?.().eventLog ?? log();
      const batches = [0, 1, 2, 3, 4, 5].map((b) => Array.from({ length: 5 }, (_, i) => event(b * 5 + i + 1)));
      const seen: LoggedEvent[] = [];
      let position = 0;
      const readOn = async () => {
        const page = await log().readAfter(position, 3);
        seen.push(...page.events);
        position = page.last;
      };
      let appended = false;
      const appends = Promise.all(batches.map((batch, b) => (b % 2 === 0 ? log() : other).append(batch))).then(
        () => (appended = true),
      );
      while (!appended) await readOn();
      await appends;
      seen.push(...(await readAll(log(), 3, position)));

      expect(seen.map((e) => e.id).sort()).toEqual(
        batches
          .flat()
          .map((e) => e.id)
          .sort(),
      );
      const positions = seen.map((e) => e.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    });
  });
};
