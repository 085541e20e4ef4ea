import type { ApiKey, RateLimits } from "../access/api-key.ts";
import type { ApiKeys } from "../access/api-keys.port.ts";
import type { Actor } from "../access/permissions.ts";
import type { Secrets } from "../access/secrets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import { banFrom, earnsBan, type BanPolicy } from "./ban-policy.ts";
import { limitsOf, planLimits } from "./plans.ts";
import type { Consumption, RateLimiter } from "./rate-limiter.port.ts";
import { secondsUntil, windowsAt } from "./windows.ts";

/** What the rate-limit headers describe: the window with the fewest requests left (the minute on a tie). */
export interface Quota {
  limit: number;
  remaining: number;
  resetsAt: Date;
  limits: RateLimits;
}

export interface Admission {
  /** The caller, when a valid key was presented. */
  actor: Actor | undefined;
  quota: Quota;
  /** Set when the request must be refused: 401, 403 banned or 429. */
  refusal: DomainError | undefined;
}

export interface AdmissionRequest {
  /** The X-API-Key header, if any. */
  secret: string | undefined;
  /** The client address: the subject of requests without a valid key. */
  address: string;
  /** False for public operations: they are limited per address whatever key comes along. */
  keyRequired: boolean;
}

interface Ports {
  /** `mayBeStale`: see CachedApiKeys. */
  apiKeys: ApiKeys & { mayBeStale?(key: ApiKey): boolean };
  secrets: Secrets;
  limiter: RateLimiter;
  clock: Clock;
}

/** The single gate every limited request passes: who is it, is it banned, and is there quota left. */
export class AdmitRequest {
  readonly #ports: Ports;
  readonly #banPolicy: BanPolicy;
  constructor(ports: Ports, banPolicy: BanPolicy) {
    this.#ports = ports;
    this.#banPolicy = banPolicy;
  }

  async execute(request: AdmissionRequest): Promise<Admission> {
    const { apiKeys, secrets, clock } = this.#ports;
    const now = clock.now();
    if (request.keyRequired && request.secret) {
      const key = await apiKeys.activeOfSecretHash(secrets.hash(request.secret));
      if (key) return this.#admitKey(key, now);
    }
    const { quota, refusal } = await this.#consume(`address:${request.address}`, planLimits.free, now);
    if (refusal || !request.keyRequired) return { actor: undefined, quota, refusal };
    const reason = request.secret ? "The API key is unknown or revoked" : "An API key is required in the X-API-Key header";
    return { actor: undefined, quota, refusal: new DomainError("unauthorized", reason) };
  }

  async #admitKey(key: ApiKey, now: Date): Promise<Admission> {
    const limits = limitsOf(key);
    const actor: Actor = { keyId: key.id, role: key.role };
    if (key.bannedUntil && key.bannedUntil > now) return banned(actor, limits, key.bannedUntil, now);
    const { quota, refusal, consumption } = await this.#consume(`key:${key.id}`, limits, now);
    if (refusal && consumption.strikes > this.#banPolicy.strikes && this.#ports.apiKeys.mayBeStale?.(key)) {
      // Past the strikes that earn a ban, one may be running that another instance started after this remembered key
      // was read (validated keys are remembered for up to a second): ask the store.
      const stored = await this.#ports.apiKeys.ofId(key.id);
      if (stored?.bannedUntil && stored.bannedUntil > now) return banned(actor, limits, stored.bannedUntil, now);
    }
    if (refusal && earnsBan(this.#banPolicy, consumption.strikes)) {
      // The request that earns the ban is still answered 429; the ban shows from the next request on.
      await this.#ports.apiKeys.ban(key.id, banFrom(this.#banPolicy, now, key.recentBans));
    }
    return { actor, quota, refusal };
  }

  async #consume(subject: string, limits: RateLimits, now: Date) {
    const { minute, day } = windowsAt(now, limits);
    const consumption: Consumption = await this.#ports.limiter.consume(subject, minute, day);
    const minuteLeft = Math.max(0, minute.limit - consumption.minuteCount);
    const dayLeft = Math.max(0, day.limit - consumption.dayCount);
    const quota: Quota =
      dayLeft < minuteLeft
        ? { limit: day.limit, remaining: dayLeft, resetsAt: day.resetsAt, limits }
        : { limit: minute.limit, remaining: minuteLeft, resetsAt: minute.resetsAt, limits };
    if (consumption.admitted) return { quota, refusal: undefined, consumption };
    const blocking = dayLeft === 0 ? day : minute;
    const retryAfter = secondsUntil(now, blocking.resetsAt);
    const refusal = new DomainError("rate_limited", `Rate limit exceeded; retry in ${retryAfter} seconds`, retryAfter);
    return { quota, refusal, consumption };
  }
}

const banned = (actor: Actor, limits: RateLimits, bannedUntil: Date, now: Date): Admission => {
  const retryAfter = secondsUntil(now, bannedUntil);
  return {
    actor,
    quota: { limit: limits.perMinute, remaining: 0, resetsAt: bannedUntil, limits },
    refusal: new DomainError("api_key_banned", `This API key is banned for ${retryAfter} more seconds`, retryAfter),
  };
};
