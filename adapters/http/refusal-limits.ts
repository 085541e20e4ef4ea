import type { AdmitRequest } from "../../core/rate-limiting/admit-request.ts";
import type { Clock } from "../../core/shared/clock.port.ts";
import { resolveClientAddress, type TrustedProxies } from "./client-address.ts";
import type { RefusalLimits } from "./node-server-errors.ts";
import { setRateLimitHeaders } from "./rate-limit-headers.ts";

/**
 * What the guard of the Node server counts its refusals with (400, 408, 413, 414, 417, 431 made before a request
 * reaches the app): one request against the client address's `free` window, as for a request without a valid key,
 * and that window's headers. The address is the socket's, or behind a trusted proxy the one its X-Forwarded-For
 * names when the headers were parsed. When the store cannot count, the refusal goes out without them.
 */
export const refusalLimits =
  (admit: AdmitRequest, clock: Clock, trusted: TrustedProxies): RefusalLimits =>
  async (socketAddress, forwardedFor) => {
    const address = resolveClientAddress(socketAddress, forwardedFor, trusted) ?? "unknown";
    const { quota } = await admit.execute({ secret: undefined, address, keyRequired: false });
    const headers: Record<string, string> = {};
    setRateLimitHeaders(headers, quota, clock.now());
    return headers;
  };
