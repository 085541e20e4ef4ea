import type { Actor } from "./permissions.ts";
import type { ApiKey, RateLimits } from "./api-key.ts";
import { existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import type { RateLimiter } from "../rate-limiting/rate-limiter.port.ts";
import { limitsOf } from "../rate-limiting/plans.ts";
import { windowNames, windowsAt, type WindowName } from "../rate-limiting/windows.ts";
import type { Clock } from "../shared/clock.port.ts";

/** Shown to the key's holder: never with its secret or its hash. */
export interface Me {
  key: ApiKey;
  limits: RateLimits;
  usage: Record<WindowName, { count: number; resetsAt: Date }>;
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
    const windows = windowsAt(clock.now(), limits);
    const counts = await limiter.usage(`key:${key.id}`, windows);
    const usage = Object.fromEntries(
      windowNames.map((name) => [name, { count: counts[name], resetsAt: windows[name].resetsAt }]),
    );
    return { key, limits, usage: usage as Me["usage"] };
  }
}
