export interface RecordedResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Noted before an attempt's first write, so a takeover can find or finish its work. */
export type AttemptNote = { orderId: number } | { categoryId: number } | { petId: number };

export type Claim =
  /** `previous`: what a lost attempt noted. */
  | { outcome: "claimed"; token: string; previous?: AttemptNote | undefined }
  | { outcome: "in-progress"; fingerprint: string; leaseUntil: Date }
  | { outcome: "completed"; fingerprint: string; response: RecordedResponse };

export interface IdempotencyClaim {
  scope: string;
  key: string;
  /** Method, path and body: the same key with another fingerprint is a misuse. */
  fingerprint: string;
  now: Date;
  /** After it, the next claim takes an unfinished key over, exactly once. */
  leaseUntil: Date;
  expiresAt: Date;
}

/** `claim` is atomic; only the token's owner can note, complete or release. */
export interface IdempotencyRecords {
  claim(claim: IdempotencyClaim): Promise<Claim>;
  /** False when the token no longer owns an unfinished record. */
  note(scope: string, key: string, token: string, note: AttemptNote): Promise<boolean>;
  /** Likewise false, nothing written. */
  complete(scope: string, key: string, token: string, response: RecordedResponse): Promise<boolean>;
  /** The note stays for the retry that claims the key next. */
  release(scope: string, key: string, token: string): Promise<void>;
}
