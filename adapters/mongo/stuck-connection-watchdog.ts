import type { MongoClient } from "mongodb";
import type { DriverEventSink } from "./driver-events.ts";

export interface StuckConnectionWatchdog {
  stop(): void;
}

/** The driver's default time between streamed heartbeats, which an awaited heartbeat may last on top of its bound. */
const HEARTBEAT_FREQUENCY_MS = 10_000;

/**
 * Closes and connects the client again when one of its server heartbeats, or a pooled connection's command, has not
 * ended long after it must have.
 *
 * The driver can wedge a server's monitor for good: a heartbeat written on a connection whose socket is already
 * destroyed, but not yet reported closed, waits for a "drain" that never comes, and no time-out covers that wait. The
 * server is then never checked again: after the next network error it stays Unknown, its pool stays paused, and every
 * operation fails server selection while nothing opens a connection (docs/operations.md, "Reconnection"). A heartbeat
 * is bounded by the connect and socket time-outs (`boundMs`), so one still running past that never ends; closing the
 * client and connecting it again starts new monitors. The same wait can hold a pooled connection checked out for good
 * (its request never answered), and such leaks would exhaust the pool: a connection checked out for longer than the
 * same bound (one command, written and answered within the socket time-out) makes the client reconnect too, with a
 * fresh pool. Until a connect succeeds, each check tries again.
 */
export const watchStuckConnections = (
  client: MongoClient,
  boundMs: number,
  report: DriverEventSink = () => undefined,
): StuckConnectionWatchdog => {
  /** Heartbeats under way: when each started and how long it may last. */
  const running = new Map<string, { since: number; bound: number }>();
  const ended = (e: { connectionId: string }) => running.delete(e.connectionId);
  client.on("serverHeartbeatStarted", (e) =>
    running.set(e.connectionId, {
      since: performance.now(),
      bound: boundMs + (e.awaited ? HEARTBEAT_FREQUENCY_MS : 0),
    }),
  );
  client.on("serverHeartbeatSucceeded", ended);
  client.on("serverHeartbeatFailed", ended);
  const checkedOut = (e: { address: string; connectionId: number | "<monitor>" }) => `${e.address} #${e.connectionId}`;
  client.on("connectionCheckedOut", (e) => running.set(checkedOut(e), { since: performance.now(), bound: boundMs }));
  client.on("connectionCheckedIn", (e) => running.delete(checkedOut(e)));

  let busy = false;
  let closed = false;
  const check = async () => {
    const now = performance.now();
    const stuck = [...running].find(([, h]) => now - h.since > h.bound);
    if (busy || (!closed && !stuck)) return;
    busy = true;
    try {
      if (stuck) {
        report(
          "mongodb connection stuck: reconnecting",
          { address: stuck[0], ms: Math.round(now - stuck[1].since) },
          "warn",
        );
        running.clear();
        closed = true;
        await client.close();
      }
      await client.connect();
      closed = false;
      report("mongodb reconnected", {}, "warn");
    } catch (error) {
      report("mongodb reconnect failed", { error: error instanceof Error ? error.message : String(error) });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), Math.max(100, boundMs / 4));
  timer.unref();
  return { stop: () => clearInterval(timer) };
};
