import type { Pets } from "../pets/pets.port.ts";
import { dropMarksSeeing } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { MARK_DROP_WAIT_MS, type MarkDrops } from "./mark-drops.ts";
import type { StockHints } from "./stock-hints.ts";

interface Ports {
  pets: Pets;
  clock: Clock;
}

/**
 * Drops the marks no write of this instance took along in time, one write per pet (docs/consistency.md#mark-drops-that-ride).
 * Run every fraction of the wait, and with `all` at a graceful stop.
 */
export class FlushMarkDrops {
  readonly #ports: Ports;
  readonly #hints: StockHints;
  readonly #drops: MarkDrops;
  readonly #waitMs: number;
  constructor(ports: Ports, hints: StockHints, drops: MarkDrops, waitMs = MARK_DROP_WAIT_MS) {
    this.#ports = ports;
    this.#hints = hints;
    this.#drops = drops;
    this.#waitMs = waitMs;
  }

  /** The pets written; a store error is thrown once every pet was tried, their drops kept for the next run. */
  async execute(all = false): Promise<number> {
    const { pets, clock } = this.#ports;
    const due = this.#drops.due(clock.now(), all ? 0 : this.#waitMs);
    const results = await Promise.allSettled(
      due.map(async ({ petId, drops }) => {
        try {
          // The fences moved: the pet as left is this instance's next sight of it.
          this.#hints.saw(petId, await dropMarksSeeing(pets, petId, drops));
        } catch (error) {
          this.#drops.giveBack(petId, drops, clock.now());
          throw error;
        }
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    return due.length;
  }
}
