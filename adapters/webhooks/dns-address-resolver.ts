import { lookup } from "node:dns/promises";
import type { AddressResolver } from "../../core/webhooks/address-resolver.port.ts";

/** The system resolver (the one the sender connects with), bounded in time. */
export class DnsAddressResolver implements AddressResolver {
  readonly #timeoutMs: number;
  constructor(timeoutMs = 2_000) {
    this.#timeoutMs = timeoutMs;
  }

  async resolve(host: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${host} did not resolve within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    try {
      const answers = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
      return answers.map((a) => a.address);
    } finally {
      clearTimeout(timer);
    }
  }
}
