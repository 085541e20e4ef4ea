import { randomBytes } from "node:crypto";
import { type Collection, type Db, type Filter, type UpdateFilter } from "mongodb";
import type { Consumption, RateLimiter } from "../../core/rate-limiting/rate-limiter.port.ts";
import type { WindowCounts, WindowName, Windows, WindowSpec } from "../../core/rate-limiting/windows.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { DEFAULT_WEDGED_AFTER_MS, guarded, sharedWaitWithin } from "./store-unavailable.ts";
import { createTtlIndex, deleteAtAfter } from "./ttl-index.ts";

/** One instance's shares in a subject's day document, under the instance's random holder id. */
interface Holder {
  /** The holder's write sequence: each of its writes is conditional on it and moves it on, so a late copy is refused. */
  n: number;
  /** Day units handed to this holder, net of what it gave back. */
  d: number;
  /** Minute units handed to this holder in minute `k`. */
  m: number;
  k: string;
}

/**
 * One document per subject and day window, the same size all day: the day's shares, the current minute's (overwritten
 * when a new minute's first share is taken) and one holder per instance that took a share today. Counts are of units
 * handed out as shares, which instances then admit locally: docs/decisions/leased-rate-limit-shares.md.
 */
interface RateWindowDocument {
  /** `<subject>|<day window key>` */
  _id: string;
  /** Day units handed out. */
  day: number;
  /** Requests refused while the day window was full. */
  dayStrikes?: number;
  minute?: { key: string; end: Date; granted: number; strikes: number };
  holders?: Record<string, Holder>;
  /** When the day window ends. */
  expiresAt: Date;
  /** When the server deletes the document (TTL index): some time after the day ended, measured on the wall clock. */
  deleteAt: Date;
}

/** A day's document is deleted this long after the day ended: instances whose clocks lag a little still find it. */
const EXPIRED_WINDOW_GRACE_MS = 10 * 60_000;
/** Writes and reads one request may spend meeting other instances' changes before it gives up. */
const ATTEMPTS = 6;
/** Subjects whose shares an instance keeps; past it, the least recently used are dropped and their shares lapse. */
const SUBJECTS_REMEMBERED = 10_000;
/** Shares returned at once when the instance stops. */
const RETURNS_IN_PARALLEL = 16;

export const createRateWindowIndexes = async (db: Db): Promise<void> => {
  await createTtlIndex(db, "rate_windows", EXPIRED_WINDOW_GRACE_MS);
};

/** This instance's view of one window of a subject. */
interface Share {
  /** Units the store handed this instance (net of returns), and how many of them it admitted. */
  held: number;
  used: number;
  /** Units the store had handed out in all, as its last answer to this instance said. */
  granted: number;
  /** The size of the last share taken: the next one doubles it. */
  last: number;
}

/** This instance's part of one subject's day document. */
interface Lease {
  id: string;
  dayEnd: number;
  /** Whether the document is known to exist, and the minute it holds as last seen. */
  known: boolean;
  storedMinute: string | undefined;
  /** This holder's write sequence as the store has it (0: no write yet). */
  n: number;
  /** The limits of the last share taken: a share is admitted from only under the limits it was taken under. */
  limits: { minute: number; day: number } | undefined;
  day: Share;
  minute: Share & { key: string; end: number };
  /** A window the store showed full: refused without asking again until the strike misses. */
  full: { window: WindowName; key: string } | undefined;
}

const noShare = (): Share => ({ held: 0, used: 0, granted: 0, last: 0 });
const unused = (share: Share) => share.held - share.used;

/**
 * The next share of a window: twice the last one (1 first), at most half of what the store had left when last asked,
 * and at least 1. A lone instance thus admits exactly the limit; several refuse early by at most their unused shares.
 */
export const nextShare = (share: Share, limit: number): number =>
  Math.max(1, Math.min(share.last > 0 ? share.last * 2 : 1, Math.floor((limit - share.granted) / 2)));

/**
 * Fixed windows whose units each instance takes from the store in shares, with one conditional write per share, and
 * admits locally: no round trip for most admitted requests, and never more admitted than the limit across instances
 * (the store hands out at most the limit). Refused requests are strikes counted in the store.
 * docs/decisions/leased-rate-limit-shares.md says why and how the sizes are chosen.
 */
export class MongoRateLimiter implements RateLimiter {
  readonly #windows: Collection<RateWindowDocument>;
  readonly #holder = randomBytes(6).toString("hex");
  readonly #leases = new Map<string, Lease>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #remembered: number;
  /** How long a call waits for the subject's earlier one before that one counts as wedged and is not waited for. */
  readonly #wedgedAfterMs: number;
  constructor(db: Db, options: { subjectsRemembered?: number; wedgedAfterMs?: number } = {}) {
    this.#windows = db.collection<RateWindowDocument>("rate_windows");
    this.#remembered = options.subjectsRemembered ?? SUBJECTS_REMEMBERED;
    this.#wedgedAfterMs = options.wedgedAfterMs ?? DEFAULT_WEDGED_AFTER_MS;
  }

  /** How many subjects this instance keeps shares of. */
  get rememberedSubjects(): number {
    return this.#leases.size;
  }

  usage(subject: string, windows: Windows): Promise<WindowCounts> {
    const lease = this.#leases.get(subject);
    if (lease?.id === `${subject}|${windows.day.key}`) return Promise.resolve(this.#counts(lease, windows.minute.key));
    return guarded(async () => {
      const doc = await this.#windows.findOne(
        { _id: `${subject}|${windows.day.key}` },
        { projection: { _id: 0, day: 1, minute: 1 } },
      );
      return { minute: doc?.minute?.key === windows.minute.key ? doc.minute.granted : 0, day: doc?.day ?? 0 };
    });
  }

  consume(subject: string, windows: Windows): Promise<Consumption> {
    if (!this.#queues.has(subject)) {
      const lease = this.#sync(subject, windows);
      if (this.#usable(lease, windows)) return Promise.resolve(this.#admit(lease));
    }
    return guarded(async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const decided = await this.#locked(subject, () => this.#decide(subject, windows));
        if (typeof decided !== "string") return decided;
        const lease = this.#sync(subject, windows);
        const refused = await this.#strike(lease, windows, decided);
        if (refused) return refused;
        lease.full = undefined; // the store no longer refuses: a raised limit, or shares given back
      }
      throw new Error(
        `Rate window ${subject}|${windows.day.key} changed under ${ATTEMPTS} attempts to count a request`,
      );
    });
  }

  /**
   * Gives back every unused share (graceful stop); each return is conditional on the holder's sequence, so a copy that
   * lands late is refused. Shares not given back lapse with their windows.
   */
  async returnShares(): Promise<void> {
    const leases = [...this.#leases.values()].filter((l) => l.n > 0 && (unused(l.day) > 0 || unused(l.minute) > 0));
    for (let i = 0; i < leases.length; i += RETURNS_IN_PARALLEL) {
      const batch = leases.slice(i, i + RETURNS_IN_PARALLEL).map((lease) => this.#giveBack(lease));
      // A store that does not answer would make every return wait its time-out: the rest lapse instead.
      if ((await Promise.allSettled(batch)).some((r) => r.status === "rejected")) return;
    }
  }

  async #giveBack(lease: Lease): Promise<void> {
    const holder = `holders.${this.#holder}`;
    const after: Holder = { n: lease.n + 1, d: lease.day.used, m: lease.minute.used, k: lease.minute.key };
    const withMinute = await this.#windows.updateOne(
      { _id: lease.id, [`${holder}.n`]: lease.n, "minute.key": lease.minute.key },
      { $inc: { day: -unused(lease.day), "minute.granted": -unused(lease.minute) }, $set: { [holder]: after } },
    );
    if (withMinute.modifiedCount === 0) {
      await this.#windows.updateOne(
        { _id: lease.id, [`${holder}.n`]: lease.n },
        { $inc: { day: -unused(lease.day) }, $set: { [holder]: { ...after, m: 0 } } },
      );
    }
    lease.n++;
    lease.day.held = lease.day.used;
    lease.minute.held = lease.minute.used;
  }

  /** Runs `run` after every earlier call for `subject`: one write at a time per subject and instance. */
  #locked<T>(subject: string, run: () => Promise<T>): Promise<T> {
    // Past the bound the earlier write is not waited for: both carry the holder's sequence, so at most one applies.
    const earlier = this.#queues.get(subject);
    const result = (earlier ? sharedWaitWithin(earlier, this.#wedgedAfterMs) : Promise.resolve()).then(run, run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(subject, tail);
    void tail.then(() => this.#queues.get(subject) === tail && this.#queues.delete(subject));
    return result;
  }

  /** This instance's lease of the subject's current day, its minute moved on to the request's. */
  #sync(subject: string, { minute, day }: Windows): Lease {
    const id = `${subject}|${day.key}`;
    let lease = this.#leases.get(subject);
    if (lease?.id !== id) {
      lease = {
        id,
        dayEnd: day.resetsAt.getTime(),
        known: false,
        storedMinute: undefined,
        n: 0,
        limits: undefined,
        day: noShare(),
        minute: { ...noShare(), key: minute.key, end: minute.resetsAt.getTime() },
        full: undefined,
      };
      this.#remember(subject, lease, minute.resetsAt.getTime() - 60_000);
    }
    // A request that read the clock before the last minute ended counts in the newer minute.
    if (minute.resetsAt.getTime() > lease.minute.end) {
      lease.minute = { ...noShare(), key: minute.key, end: minute.resetsAt.getTime() };
    }
    return lease;
  }

  #remember(subject: string, lease: Lease, now: number): void {
    this.#leases.delete(subject);
    if (this.#leases.size >= this.#remembered) {
      for (const [other, { dayEnd }] of this.#leases) if (dayEnd <= now) this.#leases.delete(other);
      for (const other of this.#leases.keys()) {
        if (this.#leases.size < this.#remembered) break;
        this.#leases.delete(other);
      }
    }
    this.#leases.set(subject, lease);
  }

  #usable(lease: Lease, { minute, day }: Windows): boolean {
    return (
      lease.limits?.minute === minute.limit &&
      lease.limits.day === day.limit &&
      unused(lease.day) > 0 &&
      unused(lease.minute) > 0
    );
  }

  #admit(lease: Lease): Consumption {
    lease.day.used++;
    lease.minute.used++;
    return { admitted: true, counts: this.#counts(lease, lease.minute.key), strikes: 0 };
  }

  /** What the headers count: what the store had handed out when last asked, less what this instance has not used. */
  #counts(lease: Lease, minuteKey: string): WindowCounts {
    const minute = lease.minute.key === minuteKey ? lease.minute.granted - unused(lease.minute) : 0;
    return { minute, day: lease.day.granted - unused(lease.day) };
  }

  /** Admits from this instance's shares, taking more first when they are used up; else names the refusing window. */
  async #decide(subject: string, windows: Windows): Promise<Consumption | WindowName> {
    const lease = this.#sync(subject, windows);
    const { minute, day } = windows;
    if (lease.limits?.minute !== minute.limit || lease.limits.day !== day.limit) lease.full = undefined;
    if (lease.full && (lease.full.window === "day" || lease.full.key === lease.minute.key)) return lease.full.window;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (this.#usable(lease, windows)) return this.#admit(lease);
      if (await this.#take(lease, minute, day)) continue;
      const full = await this.#look(lease, minute, day);
      if (full) {
        lease.full = { window: full, key: lease.minute.key };
        return full;
      }
    }
    throw new Error(`Rate window ${lease.id} changed under ${ATTEMPTS} attempts to take a share`);
  }

  /** One conditional write taking the shares this instance needs (and giving back any a lowered limit voids). */
  async #take(lease: Lease, minute: WindowSpec, day: WindowSpec): Promise<boolean> {
    const size = (share: Share, limit: number, changed: boolean) =>
      unused(share) > 0 && !changed ? unused(share) : nextShare(share, limit);
    const dayChanged = lease.limits?.day !== day.limit;
    const minuteChanged = lease.limits?.minute !== minute.limit;
    const dayShare = size(lease.day, day.limit, dayChanged);
    const minuteShare = size(lease.minute, minute.limit, minuteChanged);
    const after: Holder = {
      n: lease.n + 1,
      d: lease.day.used + dayShare,
      m: lease.minute.used + minuteShare,
      k: lease.minute.key,
    };
    const dayDelta = after.d - lease.day.held;
    const minuteDelta = after.m - lease.minute.held;
    if (!lease.known) {
      if (dayShare > day.limit || minuteShare > minute.limit) return await this.#create(lease, minute, day, undefined);
      return await this.#create(lease, minute, day, after);
    }
    const holder = `holders.${this.#holder}`;
    const filter: Filter<RateWindowDocument> = {
      _id: lease.id,
      ...(lease.n > 0 ? { [`${holder}.n`]: lease.n } : { [holder]: { $exists: false } }),
      ...((dayDelta > 0 || dayChanged) && { day: { $lte: day.limit - dayDelta } }),
    };
    const newMinute = lease.storedMinute !== lease.minute.key;
    const update: UpdateFilter<RateWindowDocument> = newMinute
      ? {
          $inc: { day: dayDelta },
          $set: {
            minute: { key: minute.key, end: new Date(lease.minute.end), granted: minuteShare, strikes: 0 },
            [holder]: after,
          },
        }
      : { $inc: { day: dayDelta, "minute.granted": minuteDelta }, $set: { [holder]: after } };
    Object.assign(
      filter,
      newMinute
        ? // `$not: {$gte}` also matches a document without a minute yet (one an earlier version wrote).
          { "minute.end": { $not: { $gte: new Date(lease.minute.end) } } }
        : {
            "minute.key": lease.minute.key,
            ...((minuteDelta > 0 || minuteChanged) && { "minute.granted": { $lte: minute.limit - minuteDelta } }),
          },
    );
    if (newMinute && minuteShare > minute.limit) return false;
    const doc = await this.#windows.findOneAndUpdate(filter, update, {
      returnDocument: "after",
      projection: { _id: 0, day: 1, minute: 1 },
    });
    if (!doc) return false;
    this.#took(lease, after, dayShare, minuteShare, minute, day, doc);
    return true;
  }

  /** Inserts the day's document, with this instance's first shares when they fit; false when it exists already. */
  async #create(lease: Lease, minute: WindowSpec, day: WindowSpec, after: Holder | undefined): Promise<boolean> {
    const doc = {
      day: after?.d ?? 0,
      minute: { key: minute.key, end: new Date(lease.minute.end), granted: after?.m ?? 0, strikes: 0 },
    };
    try {
      await this.#windows.insertOne({
        _id: lease.id,
        ...doc,
        dayStrikes: 0,
        ...(after && { holders: { [this.#holder]: after } }),
        expiresAt: day.resetsAt,
        deleteAt: deleteAtAfter(
          day.resetsAt.getTime() - (minute.resetsAt.getTime() - 60_000) + EXPIRED_WINDOW_GRACE_MS,
        ),
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      lease.known = true;
      return false;
    }
    lease.known = true;
    lease.storedMinute = minute.key;
    if (!after) return false;
    this.#took(lease, after, after.d, after.m, minute, day, doc);
    return true;
  }

  #took(
    lease: Lease,
    after: Holder,
    dayShare: number,
    minuteShare: number,
    minute: WindowSpec,
    day: WindowSpec,
    doc: Pick<RateWindowDocument, "day" | "minute">,
  ): void {
    const grew = (share: Share, size: number, held: number) => {
      if (size > unused(share)) share.last = size;
      share.held = held;
    };
    grew(lease.day, dayShare, after.d);
    grew(lease.minute, minuteShare, after.m);
    lease.n = after.n;
    lease.limits = { minute: minute.limit, day: day.limit };
    lease.day.granted = doc.day;
    lease.minute.granted = doc.minute?.granted ?? 0;
    lease.storedMinute = doc.minute?.key;
  }

  /**
   * After a share was refused: reads the document to learn why. Catches up with this holder's own writes whose
   * answers were lost, follows a newer minute, and names a window that has nothing left for this instance.
   */
  async #look(lease: Lease, minute: WindowSpec, day: WindowSpec): Promise<WindowName | undefined> {
    const doc = await this.#windows.findOne(
      { _id: lease.id },
      { projection: { _id: 0, day: 1, minute: 1, [`holders.${this.#holder}`]: 1 } },
    );
    lease.known = doc !== null;
    if (!doc) return undefined;
    lease.storedMinute = doc.minute?.key;
    if (doc.minute && doc.minute.end.getTime() > lease.minute.end) {
      lease.minute = { ...noShare(), key: doc.minute.key, end: doc.minute.end.getTime() };
    }
    lease.day.granted = doc.day;
    lease.minute.granted = doc.minute?.key === lease.minute.key ? doc.minute.granted : 0;
    const holder = doc.holders?.[this.#holder];
    if ((holder?.n ?? 0) !== lease.n) {
      // Units of a write whose answer was lost are this instance's; with no local record, count them as used.
      const forgotten = lease.n === 0;
      lease.n = holder?.n ?? 0;
      lease.day.held = holder?.d ?? 0;
      lease.day.used = forgotten ? lease.day.held : Math.min(lease.day.used, lease.day.held);
      lease.minute.held = holder?.k === lease.minute.key ? holder.m : 0;
      lease.minute.used = forgotten ? lease.minute.held : Math.min(lease.minute.used, lease.minute.held);
      return undefined;
    }
    const left = (share: Share, limit: number) => unused(share) + limit - share.granted;
    if (left(lease.day, day.limit) < 1) return "day";
    if (left(lease.minute, minute.limit) < 1) return "minute";
    return undefined;
  }

  /**
   * Counts a refused request against the refusing window, conditional on that window being full in the store (a
   * limit raised meanwhile, or shares given back, make it miss). The day's strikes while the day is full, else the
   * minute's.
   */
  async #strike(lease: Lease, { minute, day }: Windows, first: WindowName): Promise<Consumption | undefined> {
    const projection = { _id: 0, day: 1, minute: 1, dayStrikes: 1 };
    const options = { returnDocument: "after" as const, projection };
    const refused = (doc: Pick<RateWindowDocument, "day" | "minute" | "dayStrikes"> | null, window: WindowName) => {
      if (!doc) return undefined;
      lease.day.granted = doc.day;
      if (doc.minute?.key === lease.minute.key) lease.minute.granted = doc.minute.granted;
      const strikes = window === "day" ? doc.dayStrikes : doc.minute?.strikes;
      return { admitted: false, counts: this.#counts(lease, lease.minute.key), strikes: strikes ?? 0 };
    };
    const byDay = async () =>
      refused(
        await this.#windows.findOneAndUpdate(
          { _id: lease.id, day: { $gte: day.limit } },
          { $inc: { dayStrikes: 1 } },
          options,
        ),
        "day",
      );
    const byMinute = async () => {
      const inMinute = await this.#windows.findOneAndUpdate(
        {
          _id: lease.id,
          day: { $lt: day.limit },
          "minute.key": lease.minute.key,
          "minute.granted": { $gte: minute.limit },
        },
        { $inc: { "minute.strikes": 1 } },
        options,
      );
      if (inMinute || minute.limit > 0) return refused(inMinute, "minute");
      // A minute of limit 0 has no share taken in it: its first strike starts it.
      const started = await this.#windows.findOneAndUpdate(
        { _id: lease.id, day: { $lt: day.limit }, "minute.end": { $not: { $gte: new Date(lease.minute.end) } } },
        { $set: { minute: { key: lease.minute.key, end: new Date(lease.minute.end), granted: 0, strikes: 1 } } },
        options,
      );
      return refused(started, "minute");
    };
    return first === "day" ? ((await byDay()) ?? (await byMinute())) : ((await byMinute()) ?? (await byDay()));
  }
}
