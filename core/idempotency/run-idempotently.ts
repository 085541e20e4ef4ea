import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { AttemptNote, IdempotencyRecords, RecordedResponse } from "./idempotency-records.port.ts";

const HOUR_MS = 3_600_000;

export interface IdempotentRequest {
  scope: string;
  key: string;
  fingerprint: string;
}

export interface IdempotencyPolicy {
  /** How long a completed response is replayed. */
  retentionMs: number;
  /**
   * How long an unfinished first request locks its key: far above any request's own time limit, so a live one keeps it.
   */
  leaseMs: number;
}

/**
 * An operation's attempt: what a lost earlier attempt noted, and `note` to write this attempt's id before it writes.
 */
export interface IdempotentAttempt {
  previous: AttemptNote | undefined;
  /** Throws service_unavailable, nothing written, when this attempt has lost its lock to a later one. */
  note(note: AttemptNote): Promise<void>;
  /** Writes `note` again: false once a later attempt has taken the key over (ordered against that takeover). */
  confirm(note: AttemptNote): Promise<boolean>;
}

/** The kinds of note: `orderId`, `categoryId`, `petId`. */
type NoteKind = AttemptNote extends infer N ? (N extends unknown ? keyof N : never) : never;

/** The id a lost earlier attempt noted for this kind of write (`orderId`, `categoryId`, `petId`), if it noted one. */
export const notedId = (attempt: IdempotentAttempt | undefined, kind: NoteKind): number | undefined => {
  const previous: Partial<Record<NoteKind, number>> | undefined = attempt?.previous;
  return previous?.[kind];
};

/** The answer of an attempt that a later one took over (it outlived its key's lock) and that wrote nothing it keeps. */
export const lockLost = (): DomainError =>
  new DomainError(
    "service_unavailable",
    "This request took longer than its Idempotency-Key's lock and a retry took over; retry it",
    1,
  );

export const defaultIdempotencyPolicy: IdempotencyPolicy = { retentionMs: 24 * HOUR_MS, leaseMs: 60_000 };

/**
 * A retry with the same key and request replays the first response; server errors are not recorded, so a retry acts
 * afresh.
 */
export class RunIdempotently {
  readonly #ports: { records: IdempotencyRecords; clock: Clock };
  readonly #policy: IdempotencyPolicy;
  constructor(
    ports: { records: IdempotencyRecords; clock: Clock },
    policy: IdempotencyPolicy = defaultIdempotencyPolicy,
  ) {
    this.#ports = ports;
    this.#policy = policy;
  }

  async execute(
    request: IdempotentRequest,
    act: (attempt: IdempotentAttempt) => Promise<RecordedResponse>,
    isFinal: (response: RecordedResponse) => boolean,
  ): Promise<{ response: RecordedResponse; replayed: boolean }> {
    const { records, clock } = this.#ports;
    const now = clock.now();
    const claim = await records.claim({
      ...request,
      now,
      leaseUntil: new Date(now.getTime() + this.#policy.leaseMs),
      expiresAt: new Date(now.getTime() + this.#policy.retentionMs),
    });
    if (claim.outcome !== "claimed") {
      if (claim.fingerprint !== request.fingerprint) {
        throw new DomainError("idempotency_key_reused", "This Idempotency-Key was used for a different request");
      }
      if (claim.outcome === "in-progress") {
        const secondsLeft = Math.max(1, Math.ceil((claim.leaseUntil.getTime() - now.getTime()) / 1000));
        throw new DomainError(
          "idempotency_request_in_progress",
          "A request with this Idempotency-Key is still being processed",
          secondsLeft,
        );
      }
      return { response: claim.response, replayed: true };
    }
    const { token, previous } = claim;
    const confirm = (note: AttemptNote) => records.note(request.scope, request.key, token, note);
    const attempt: IdempotentAttempt = {
      previous,
      note: async (note) => {
        if (!(await confirm(note))) throw lockLost();
      },
      confirm,
    };
    let response: RecordedResponse;
    try {
      response = await act(attempt);
    } catch (error) {
      await records.release(request.scope, request.key, token);
      throw error;
    }
    if (isFinal(response)) await records.complete(request.scope, request.key, token, response);
    else await records.release(request.scope, request.key, token);
    return { response, replayed: false };
  }
}
