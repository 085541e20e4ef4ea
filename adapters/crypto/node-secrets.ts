import { hash, randomBytes } from "node:crypto";
import type { Secrets } from "../../core/access/secrets.port.ts";

/**
 * Secrets are 32 random bytes, so a plain SHA-256 is enough to store them: nothing to brute-force, and a look-up by
 * hash compares no secret byte by byte (no timing to measure).
 */
export class NodeSecrets implements Secrets {
  generate(): string {
    return `pk_${randomBytes(32).toString("base64url")}`;
  }

  hash(secret: string): string {
    return hash("sha256", secret, "hex");
  }
}
