export interface BanPolicy {
  /** Every `strikes`-th refused request earns a ban. */
  strikes: number;
  /** Of the first ban; each further one within 24 hours lasts twice as long. */
  seconds: number;
}

/** Unless PETSTORE_BAN_STRIKES or PETSTORE_BAN_SECONDS say otherwise. */
export const defaultBanPolicy: BanPolicy = { strikes: 10, seconds: 900 };

const DAY_MS = 86_400_000;

export const earnsBan = (policy: BanPolicy, strikes: number): boolean => strikes > 0 && strikes % policy.strikes === 0;

export const banFrom = (policy: BanPolicy, now: Date, recentBans: readonly Date[]) => {
  const forgetBefore = new Date(now.getTime() - DAY_MS);
  const earlier = recentBans.filter((at) => at > forgetBefore).length;
  const ms = Math.min(policy.seconds * 1000 * 2 ** earlier, DAY_MS);
  return { at: now, until: new Date(now.getTime() + ms), forgetBefore };
};
