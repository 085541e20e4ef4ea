import type { RecoverInterruptedWrites, RecoveryReport } from "../core/recovery/recover-interrupted-writes.ts";
import { errorFields, type Logger } from "./logger.ts";
import { outsideRequests } from "./outside-requests.ts";

export interface RecoveryLoop {
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

const didSomething = (report: RecoveryReport): boolean => Object.values(report).some((n) => n > 0);

/**
 * Runs recovery now and then every `intervalMs`, one pass at a time (a slow pass delays the next rather than
 * overlapping it). A failed pass is logged and retried at the next tick: recovery is idempotent.
 */
export const startRecoveryLoop = async (
  recovery: RecoverInterruptedWrites,
  intervalMs: number,
  logger: Logger,
  /** Each pass's report, or undefined when it failed (metrics). */
  observe?: (report: RecoveryReport | undefined) => void,
): Promise<RecoveryLoop> => {
  let running: Promise<void> | undefined;
  const pass = (): Promise<void> => {
    running ??= recovery
      .execute()
      .then((report) => {
        observe?.(report);
        if (didSomething(report)) logger.info("recovered interrupted writes", { ...report });
      })
      .catch((error: unknown) => {
        observe?.(undefined);
        logger.warn("recovery pass failed; retrying at the next interval", errorFields(error));
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  await outsideRequests(pass);
  const timer = setInterval(() => void outsideRequests(pass), intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
};
