import type { ApiKey, RateLimits } from "../access/api-key.ts";
import type { ApiKeys } from "../access/api-keys.port.ts";
import type { Actor } from "../access/permissions.ts";
import type { Secrets } from "../access/secrets.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import { banFrom, earnsBan, type BanPolicy } from "./ban-policy.ts";
import { limitsOf, planLimits } from "./plans.ts";
import type { Consumption, RateLimiter } from "./rate-limiter.port.ts";
import { rateWindows, secondsUntil, windowNames, windowsAt, type WindowName } from "./windows.ts";

/** What the headers show: the window with the fewest requests left (the shortest on a tie). */
export interface Quota {
  window: WindowName;
  limit: number;
  remaining: number;
  resetsAt: Date;
  limits: RateLimits;
}

export interface Admission {
  actor: Actor | undefined;
  quota: Quota;
  refusal: DomainError | undefined;
}

export interface AdmissionRequest {
  secret: string | undefined;
  address: string;
  /** False for public operations: limited per address whatever key comes along. */
  keyRequired: boolean;
}

interface Ports {
  apiKeys: ApiKeys & { mayBeStale?(key: ApiKey): boolean };
  secrets: Secrets;
  limiter: RateLimiter;
  clock: Clock;
}

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
      if (key) return await this.#admitKey(key, now);
    }
    const { quota, refusal } = await this.#consume(`address:${request.address}`, planLimits.free, now);
    if (refusal || !request.keyRequired) return { actor: undefined, quota, refusal };
    const reason = request.secret
      ? "The API key is unknown or revoked"
      : "An API key is required in the X-API-Key header";
    return { actor: undefined, quota, refusal: new DomainError("unauthorized", reason) };
  }

  async #admitKey(key: ApiKey, now: Date): Promise<Admission> {
    const limits = limitsOf(key);
    const actor: Actor = { keyId: key.id, role: key.role };
    if (key.bannedUntil && key.bannedUntil > now) return banned(actor, limits, key.bannedUntil, now);
    const { quota, refusal, consumption } = await this.#consume(`key:${key.id}`, limits, now);
    if (refusal && consumption.strikes > this.#banPolicy.strikes && this.#ports.apiKeys.mayBeStale?.(key)) {
      // A remembered key may predate a ban another instance started: past the strikes that earn one, ask the store.
      const stored = await this.#ports.apiKeys.ofId(key.id);
      if (stored?.bannedUntil && stored.bannedUntil > now) return banned(actor, limits, stored.bannedUntil, now);
    }
    if (refusal && earnsBan(this.#banPolicy, consumption.strikes)) {
      // This request is still answered 429; the ban shows from the next one on.
      await this.#ports.apiKeys.ban(key.id, banFrom(this.#banPolicy, now, key.recentBans));
    }
    return { actor, quota, refusal };
  }

  async #consume(subject: string, limits: RateLimits, now: Date) {
    const windows = windowsAt(now, limits);
    const consumption: Consumption = await this.#ports.limiter.consume(subject, windows);
    const left = (name: WindowName) => Math.max(0, windows[name].limit - consumption.counts[name]);
    const tightest = windowNames.reduce((best, name) => (left(name) < left(best) ? name : best));
    const quota: Quota = {
      window: tightest,
      limit: windows[tightest].limit,
      remaining: left(tightest),
      resetsAt: windows[tightest].resetsAt,
      limits,
    };
    if (consumption.admitted) return { quota, refusal: undefined, consumption };
    // The longest full window: waiting for a shorter one to end would not help.
    const blocking = windowNames.findLast((name) => left(name) === 0) ?? windowNames[0]!;
    const retryAfter = secondsUntil(now, windows[blocking].resetsAt);
    const refusal = new DomainError("rate_limited", `Rate limit exceeded; retry in ${retryAfter} seconds`, retryAfter);
    return { quota, refusal, consumption };
  }
}

const shortest = windowNames[0]!;

const banned = (actor: Actor, limits: RateLimits, bannedUntil: Date, now: Date): Admission => {
  const retryAfter = secondsUntil(now, bannedUntil);
  return {
    actor,
    quota: {
      window: shortest,
      limit: limits[rateWindows[shortest].limitField],
      remaining: 0,
      resetsAt: bannedUntil,
      limits,
    },
    refusal: new DomainError("api_key_banned", `This API key is banned for ${retryAfter} more seconds`, retryAfter),
  };
};
