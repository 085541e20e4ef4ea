/**
 * The benchmark's servers run as child processes with an IPC channel: they say `ready` once listening, and answer
 * `cpu` with their process's CPU time so far (user + system, µs), which the runner turns into CPU per request, and
 * `memory` with their RSS and heap.
 */
export type ControlRequest =
  | { type: "cpu"; id: number }
  | { type: "memory"; id: number }
  | { type: "stop" }
  /** Answered by bench/clock-warp.ts, when the server was started with it: its clock reads `at` (ms) now. */
  | { type: "clock"; id: number; at: number };
export type ControlReply =
  | { type: "ready" }
  | { type: "cpu"; id: number; micros: number }
  /** After a full GC when the process runs with --expose-gc; MiB. */
  | { type: "memory"; id: number; rss: number; heap: number }
  | { type: "clock"; id: number };

export const answerControl = (stop: () => Promise<void>): void => {
  const send = (reply: ControlReply) => process.send?.(reply);
  process.on("message", (message: ControlRequest) => {
    if (message.type === "cpu") {
      const { user, system } = process.cpuUsage();
      send({ type: "cpu", id: message.id, micros: user + system });
    } else if (message.type === "memory") {
      for (let i = 0; i < 3; i++) globalThis.gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      send({ type: "memory", id: message.id, rss: rss / 2 ** 20, heap: heapUsed / 2 ** 20 });
    } else if (message.type === "stop") {
      void stop().then(() => process.exit(0));
    }
  });
  process.on("disconnect", () => void stop().then(() => process.exit(0)));
  send({ type: "ready" });
};
