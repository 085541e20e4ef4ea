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
  retentionMs: number;
  /** Far above any request's own time limit, so a live request keeps its key. */
  leaseMs: number;
}

export interface IdempotentAttempt {
  previous: AttemptNote | undefined;
  /** Throws service_unavailable when a later attempt took the key over. */
  note(note: AttemptNote): Promise<void>;
  /** Writes `note` again, ordered against a takeover: false once one happened. */
  confirm(note: AttemptNote): Promise<boolean>;
}

type NoteKind = AttemptNote extends infer N ? (N extends unknown ? keyof N : never) : never;

export const notedId = (attempt: IdempotentAttempt | undefined, kind: NoteKind): number | undefined => {
  const previous: Partial<Record<NoteKind, number>> | undefined = attempt?.previous;
  return previous?.[kind];
};

/** For an attempt that was taken over and keeps nothing it wrote. */
export const lockLost = (): DomainError =>
  new DomainError(
    "service_unavailable",
    "This request took longer than its Idempotency-Key's lock and a retry took over; retry it",
    1,
  );

export const defaultIdempotencyPolicy: IdempotencyPolicy = { retentionMs: 24 * HOUR_MS, leaseMs: 60_000 };

/** Only final answers are recorded, so the retry of a 5xx acts afresh: docs/api.md#safe-retries-idempotency-key. */
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
