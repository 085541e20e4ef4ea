/**
 * Worker thread of bench/scaling.ts: sends GET `url` one at a time every `everyMs` and keeps each latency (ms) under
 * the phase the parent last named; on `stop` it posts them back. A thread of its own, so the load generator's event
 * loop does not delay the probes.
 */
import { parentPort, workerData } from "node:worker_threads";

const { url, key, everyMs } = workerData as { url: string; key: string; everyMs: number };
const phases: Record<string, number[]> = {};
let current: number[] | undefined;
let stopped = false;

parentPort!.on("message", (message: { phase?: string; stop?: boolean }) => {
  if (message.phase !== undefined) current = phases[message.phase] = [];
  if (message.stop) stopped = true;
});

while (!stopped) {
  const started = performance.now();
  try {
    const res = await fetch(url, { headers: { "x-api-key": key } });
    await res.arrayBuffer();
  } catch {
    // a refused probe counts with its time
  }
  const took = performance.now() - started;
  current?.push(took);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - took)));
}
parentPort!.postMessage(phases);
