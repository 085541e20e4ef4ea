import type { Clock } from "../shared/clock.port.ts";
import { existingApiKey } from "./api-key-rules.ts";
import type { ApiKeys } from "./api-keys.port.ts";

interface Ports {
  apiKeys: ApiKeys;
  clock: Clock;
}

export class RevokeApiKey {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number): Promise<void> {
    const { apiKeys, clock } = this.#ports;
    const current = await existingApiKey(apiKeys, id);
    if (current.revokedAt) return; // revoking twice is harmless
    await apiKeys.revoke(id, clock.now());
  }
}
