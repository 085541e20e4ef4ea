import autocannon from "autocannon";
import type { ChildServer } from "./child-server.ts";
import type { Keys, Scenario } from "./scenarios.ts";
import type { Request } from "./traffic.ts";

/** One round of load on one server, and what it cost the server. */
export interface Round {
  reqPerSec: number;
  /** Requests answered, 2xx or not. */
  answered: number;
  p50: number;
  p99: number;
  /** The server process's CPU time over the round ÷ requests answered. */
  cpuMicrosPerRequest: number;
  /** Lines its log shipper read over the round ÷ requests answered (undefined without a shipper). */
  logLinesPerRequest: number | undefined;
  failures: number;
}

/**
 * Loads `url` with `scenario`'s traffic for `duration` seconds over `connections` connections. Each request is made
 * as it is sent (autocannon's setupRequest), except a connection's first of every 1,000: autocannon builds that one
 * for all connections at once, before any is sent, so it is a fixed request that needs no answer.
 */
export const load = (url: string, scenario: Scenario, keys: Keys, duration: number, connections: number) => {
  const traffic = scenario.traffic(keys);
  const toAutocannon = (request: Request) => ({
    method: request.method,
    path: request.path,
    headers: {
      "x-api-key": request.key,
      ...(request.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const fixed = scenario.traffic(keys).next();
  const made = {
    // autocannon's defaults (host and port among them) with this request's method, path, headers and body.
    setupRequest: (defaults: object, context: { request?: Request }) => {
      context.request = traffic.next();
      return { ...defaults, ...toAutocannon(context.request) };
    },
    onResponse: (status: number, body: string, context: { request?: Request }) => {
      if (context.request) traffic.answered(context.request, status, body);
    },
  };
  return autocannon({
    url,
    connections,
    duration,
    // autocannon stops at a sampling tick: ticks of 100 ms keep a round within 0.1 s of its duration.
    sampleInt: 100,
    requests: [toAutocannon(fixed), ...Array<typeof made>(999).fill(made)],
  });
};

/** Drives `server` with `scenario` for `duration` seconds over `connections` connections. */
export const drive = async (
  server: ChildServer,
  scenario: Scenario,
  keys: Keys,
  duration: number,
  connections: number,
): Promise<Round> => {
  const cpuBefore = await server.cpuMicros();
  const linesBefore = await server.logLines();
  const result = await load(server.url, scenario, keys, duration, connections);
  const cpuAfter = await server.cpuMicros();
  const linesAfter = await server.logLines();
  const answered = result["2xx"] + result.non2xx;
  return {
    reqPerSec: answered / result.duration,
    answered,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicrosPerRequest: (cpuAfter - cpuBefore) / Math.max(1, answered),
    logLinesPerRequest:
      linesBefore === undefined || linesAfter === undefined
        ? undefined
        : (linesAfter - linesBefore) / Math.max(1, answered),
    failures: result.non2xx + result.errors + result.timeouts,
  };
};
