import type { FlushMarkDrops } from "../core/orders/flush-mark-drops.ts";
import { errorFields, type Logger } from "./logger.ts";
import { outsideRequests } from "./outside-requests.ts";

/** How often waiting mark drops are looked at: a fraction of how long each waits for a ride. */
const EVERY_MS = 250;

export interface MarkDropLoop {
  /** Stops the timer, then drops every mark still waiting (a graceful stop leaves none for recovery). */
  stop(): Promise<void>;
}

/** One run at a time; a failed run keeps its drops for the next, and is logged once until a run succeeds. */
export const startMarkDropLoop = (flush: FlushMarkDrops, logger: Logger): MarkDropLoop => {
  let running: Promise<void> | undefined;
  let failing = false;
  const run = (all: boolean): Promise<void> => {
    running ??= flush
      .execute(all)
      .then(
        () => {
          failing = false;
        },
        (error: unknown) => {
          if (!failing) logger.warn("dropping marks failed; kept for the next run", errorFields(error));
          failing = true;
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void outsideRequests(() => run(false)), EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await run(true);
    },
  };
};
