/** What a replay gives back: the first response, as it was sent. */
export interface RecordedResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** The id an attempt writes under, noted before its first write so a takeover can find or finish its work. */
export type AttemptNote = { orderId: number } | { categoryId: number } | { petId: number };

export type Claim =
  /** The key is ours: act, then `complete` or `release` with this token; `previous` is a lost attempt's note. */
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
  /** Until when an unfinished claim locks the key; after it, the next claim takes the key over, exactly once. */
  leaseUntil: Date;
  /** When the record is forgotten. */
  expiresAt: Date;
}

/** One record per (scope, key): `claim` is atomic, and only the token's owner can complete or release it. */
export interface IdempotencyRecords {
  claim(claim: IdempotencyClaim): Promise<Claim>;
  /** Writes down the attempt's note; false when the token no longer owns an unfinished record. */
  note(scope: string, key: string, token: string, note: AttemptNote): Promise<boolean>;
  /** Records the response; false (and nothing written) when the token no longer owns an unfinished record. */
  complete(scope: string, key: string, token: string, response: RecordedResponse): Promise<boolean>;
  /** Releases the key after a failure that must not be replayed; the note stays for the retry that claims it. */
  release(scope: string, key: string, token: string): Promise<void>;
}
