import type { Actor } from "./permissions.ts";
import type { ApiKey, RateLimits } from "./api-key.ts";
import { existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import type { RateLimiter } from "../rate-limiting/rate-limiter.port.ts";
import { limitsOf } from "../rate-limiting/plans.ts";
import { windowsAt } from "../rate-limiting/windows.ts";
import type { Clock } from "../shared/clock.port.ts";

/** The calling key as its holder may see it: never its secret or its hash. */
export interface Me {
  key: ApiKey;
  limits: RateLimits;
  /** Requests counted in the current UTC minute and day, this one included, and when each window resets. */
  usage: { minute: number; day: number; minuteResetsAt: Date; dayResetsAt: Date };
}

export class GetMe {
  readonly #ports: { apiKeys: ApiKeys; limiter: RateLimiter; clock: Clock };
  constructor(ports: { apiKeys: ApiKeys; limiter: RateLimiter; clock: Clock }) {
    this.#ports = ports;
  }

  async execute(actor: Actor): Promise<Me> {
    const { apiKeys, limiter, clock } = this.#ports;
    const key = await existingApiKey(apiKeys, actor.keyId);
    const limits = limitsOf(key);
    const { minute, day } = windowsAt(clock.now(), limits);
    const used = await limiter.usage(`key:${key.id}`, minute, day);
    return { key, limits, usage: { minute: used.minuteCount, day: used.dayCount, minuteResetsAt: minute.resetsAt, dayResetsAt: day.resetsAt } };
  }
}
