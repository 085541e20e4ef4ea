import autocannon from "autocannon";
import type { ChildServer } from "./child-server.ts";
import type { Scenario } from "./scenarios.ts";

/** One round of load on one server, and what it cost the server. */
export interface Round {
  reqPerSec: number;
  p50: number;
  p99: number;
  /** The server process's CPU time over the round ÷ requests answered. */
  cpuMicrosPerRequest: number;
  failures: number;
}

/** Drives `server` with `scenario` for `duration` seconds over `connections` connections. */
export const drive = async (
  server: ChildServer,
  scenario: Scenario,
  key: string,
  duration: number,
  connections: number,
): Promise<Round> => {
  const cpuBefore = await server.cpuMicros();
  const result = await autocannon({
    url: `${server.url}${scenario.path}`,
    method: scenario.method,
    connections,
    duration,
    // autocannon stops at a sampling tick: ticks of 100 ms keep a round within 0.1 s of its duration.
    sampleInt: 100,
    headers: { "x-api-key": key, ...(scenario.body ? { "content-type": "application/json" } : {}) },
    ...(scenario.body ? { body: scenario.body } : {}),
  });
  const cpuAfter = await server.cpuMicros();
  const answered = result["2xx"] + result.non2xx;
  return {
    reqPerSec: answered / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicrosPerRequest: (cpuAfter - cpuBefore) / Math.max(1, answered),
    failures: result.non2xx + result.errors + result.timeouts,
  };
};
