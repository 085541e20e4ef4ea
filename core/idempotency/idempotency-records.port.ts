/** What a replay gives back: the first response, as it was sent. */
export interface RecordedResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * What an attempt writes down before its first write (`note`): the id it writes under (an order's when placing one,
 * a category's or a pet's when creating one). An attempt that takes over a lost one's record gets the lost one's
 * note back, so it can finish or find that attempt's work instead of doing it a second time.
 */
export type AttemptNote = { orderId: number } | { categoryId: number } | { petId: number };

export type Claim =
  /**
   * The key is ours: act, then `complete` or `release` it with this token (the lock's owner). `previous`: the note of
   * the unfinished attempt whose lock ran out and whose record this claim took over, if it noted anything.
   */
  | { outcome: "claimed"; token: string; previous?: AttemptNote | undefined }
  /** Another request holds the key and has not finished; its lock runs out at `leaseUntil`. */
  | { outcome: "in-progress"; fingerprint: string; leaseUntil: Date }
  | { outcome: "completed"; fingerprint: string; response: RecordedResponse };

export interface IdempotencyClaim {
  /** Who may use the key: keys are scoped per API key. */
  scope: string;
  key: string;
  /** Identifies the request (method, path, body): the same key with another fingerprint is a misuse. */
  fingerprint: string;
  now: Date;
  /**
   * Until when a claim without completion blocks others (the lock). After it the first request counts as lost:
   * the next claim takes the key over, exactly once however many race for it, under a new token.
   */
  leaseUntil: Date;
  /** When the record is forgotten. */
  expiresAt: Date;
}

/**
 * Idempotency records, one per (scope, key). `claim` is atomic: of two racing claims exactly one wins. `complete`
 * and `release` act only while the token still owns the record, so a request whose lock ran out and was taken over
 * can neither overwrite nor free the new owner's record.
 */
export interface IdempotencyRecords {
  claim(claim: IdempotencyClaim): Promise<Claim>;
  /**
   * Writes down the attempt's note, replacing any earlier one; false (and nothing written) when the token no longer
   * owns an unfinished record. A claim of the same request (fingerprint) that takes over a record whose lease ran
   * out, or that was released, keeps its note (and hands it back); a claim of an absent or expired record, or of
   * another request, starts without one.
   */
  note(scope: string, key: string, token: string, note: AttemptNote): Promise<boolean>;
  /** Records the response; false (and nothing written) when the token no longer owns an unfinished record. */
  complete(scope: string, key: string, token: string, response: RecordedResponse): Promise<boolean>;
  /**
   * Gives the key up after a failure that must not be replayed, so a retry acts afresh; only its owner can. The
   * record stays, unlocked, with its note: the retry that claims it learns what the failed attempt may have written
   * (a failure after a write, a store that stopped answering half-way), as if that attempt had been lost.
   */
  release(scope: string, key: string, token: string): Promise<void>;
}
