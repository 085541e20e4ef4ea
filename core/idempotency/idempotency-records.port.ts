/** What a replay gives back: the first response, as it was sent. */
export interface RecordedResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type Claim =
  /** The key is ours: act, then `complete` or `release` it. */
  | { outcome: "claimed" }
  /** Another request holds the key and has not finished (its lease has not run out). */
  | { outcome: "in-progress"; fingerprint: string }
  | { outcome: "completed"; fingerprint: string; response: RecordedResponse };

export interface IdempotencyClaim {
  /** Who may use the key: keys are scoped per API key. */
  scope: string;
  key: string;
  /** Identifies the request (method, path, body): the same key with another fingerprint is a misuse. */
  fingerprint: string;
  now: Date;
  /** Until when a claim without completion blocks others; after it, the request counts as lost and the key is free. */
  leaseUntil: Date;
  /** When the record is forgotten. */
  expiresAt: Date;
}

/** Idempotency records, one per (scope, key). `claim` is atomic: of two racing claims exactly one wins. */
export interface IdempotencyRecords {
  claim(claim: IdempotencyClaim): Promise<Claim>;
  complete(scope: string, key: string, response: RecordedResponse): Promise<void>;
  /** Gives the key up after a failure that must not be replayed, so a retry acts afresh. */
  release(scope: string, key: string): Promise<void>;
}
