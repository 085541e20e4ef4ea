/**
 * Preloaded (`node --import bench/clock-warp.ts`) into a server the bench needs at another time of day: `Date.now()`
 * and `new Date()` read the real clock plus an offset, which BENCH_CLOCK_AT (ms since the epoch: what the clock reads
 * at start) sets first and a `clock` control message moves later. Only forward, as a clock that runs: a window's state
 * is then what a day of real traffic would have left, whatever the rate limiter's layout.
 */
import type { ControlReply, ControlRequest } from "./server-control.ts";

const RealDate = Date;
let offset = process.env.BENCH_CLOCK_AT ? Number(process.env.BENCH_CLOCK_AT) - RealDate.now() : 0;

class WarpedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...(args as [string | number | Date]));
  }
  static override now(): number {
    return RealDate.now() + offset;
  }
}
globalThis.Date = WarpedDate as DateConstructor;

process.on("message", (message: ControlRequest) => {
  if (message.type !== "clock") return;
  offset = Math.max(offset, message.at - RealDate.now());
  process.send?.({ type: "clock", id: message.id } satisfies ControlReply);
});
