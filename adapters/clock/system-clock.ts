import type { Clock } from "../../core/shared/clock.port.ts";

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}
