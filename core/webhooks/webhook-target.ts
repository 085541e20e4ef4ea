import { DomainError } from "../shared/domain-error.ts";
import type { AddressResolver } from "./address-resolver.port.ts";
import { isRefusedAddress, parseIpv4, parseIpv6 } from "./target-addresses.ts";

const refused = (message: string): DomainError => new DomainError("webhook_target_refused", message);

/** URL keeps IPv6 literals in brackets. */
export const ipLiteralOf = (hostname: string): string | undefined => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return parseIpv4(bare) !== undefined || parseIpv6(bare) !== undefined ? bare : undefined;
};

/** Rules: docs/security.md#webhook-targets-ssrf. */
export const assertTargetAllowed = async (
  url: string,
  resolver: AddressResolver,
  allowPrivate: boolean,
): Promise<void> => {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw refused("The webhook URL is not a valid absolute URL");
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") throw refused("Webhook URLs must be http or https");
  if (target.username || target.password) throw refused("Webhook URLs must not carry credentials");
  if (allowPrivate) return;
  const literal = ipLiteralOf(target.hostname);
  let addresses: string[];
  if (literal !== undefined) {
    addresses = [literal];
  } else {
    try {
      addresses = await resolver.resolve(target.hostname);
    } catch {
      throw refused(`The webhook host ${target.hostname} does not resolve`);
    }
  }
  if (addresses.length === 0 || addresses.some(isRefusedAddress)) {
    throw refused(`The webhook host ${target.hostname} is a private, loopback, link-local or reserved address`);
  }
};
