export interface BanPolicy {
  /** Refused requests that earn a ban: every `strikes`-th one. */
  strikes: number;
  /** The first ban's length; each further ban within 24 hours lasts twice as long as the one before. */
  seconds: number;
}

const DAY_MS = 86_400_000;

export const earnsBan = (policy: BanPolicy, strikes: number): boolean => strikes > 0 && strikes % policy.strikes === 0;

/** A ban starting `now`: doubled for each ban in the 24 hours before, never longer than 24 hours. */
export const banFrom = (policy: BanPolicy, now: Date, recentBans: readonly Date[]) => {
  const forgetBefore = new Date(now.getTime() - DAY_MS);
  const earlier = recentBans.filter((at) => at > forgetBefore).length;
  const ms = Math.min(policy.seconds * 1000 * 2 ** earlier, DAY_MS);
  return { at: now, until: new Date(now.getTime() + ms), forgetBefore };
};
