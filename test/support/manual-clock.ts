import type { Clock } from "../../core/shared/clock.port.ts";

/** A clock that moves only when a test moves it. */
export class ManualClock implements Clock {
  #now: Date;
  constructor(start: Date | string = "2026-11-21T12:00:00.000Z") {
    this.#now = new Date(start);
  }

  now(): Date {
    return new Date(this.#now);
  }

  set(to: Date | string): void {
    this.#now = new Date(to);
  }

  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}
