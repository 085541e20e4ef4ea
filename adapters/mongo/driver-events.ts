import type { MongoClient } from "mongodb";

/**
 * Where the driver's pool and monitoring events go, one line each: at debug level, but for what the service does
 * about a wedged monitor (stuck-connection-watchdog.ts), a warning.
 */
export type DriverEventSink = (message: string, fields: Record<string, unknown>, level?: "debug" | "warn") => void;

const describe = (error: unknown): string | undefined =>
  error instanceof Error ? `${error.name}: ${error.message}` : undefined;
/** The error a pool event carries at run time (the driver's types leave it out). */
const errorOf = (event: object): string | undefined => describe((event as { error?: unknown }).error);

/**
 * Reports what the driver does with its connections and its view of the servers: connections opened and closed (and
 * why), check-outs that failed, the pool cleared and ready again, heartbeats that failed, and a server's or the
 * topology's type changing (e.g. to Unknown when the server stops answering, and back).
 */
export const reportDriverEvents = (client: MongoClient, report: DriverEventSink): void => {
  client.on("connectionCreated", (e) =>
    report("mongodb connection created", { address: e.address, connectionId: e.connectionId }),
  );
  client.on("connectionClosed", (e) =>
    report("mongodb connection closed", {
      address: e.address,
      connectionId: e.connectionId,
      reason: e.reason,
      error: errorOf(e),
    }),
  );
  client.on("connectionCheckOutFailed", (e) =>
    report("mongodb connection check-out failed", { address: e.address, reason: e.reason, error: errorOf(e) }),
  );
  client.on("connectionPoolCleared", (e) =>
    report("mongodb pool cleared", { address: e.address, interruptInUseConnections: e.interruptInUseConnections }),
  );
  client.on("connectionPoolReady", (e) => report("mongodb pool ready", { address: e.address }));
  client.on("serverHeartbeatFailed", (e) =>
    report("mongodb heartbeat failed", { address: e.connectionId, ms: e.duration, error: describe(e.failure) }),
  );
  client.on("serverDescriptionChanged", (e) => {
    if (e.previousDescription.type === e.newDescription.type) return;
    report("mongodb server changed", {
      address: e.address,
      from: e.previousDescription.type,
      to: e.newDescription.type,
      error: describe(e.newDescription.error),
    });
  });
  client.on("topologyDescriptionChanged", (e) => {
    if (e.previousDescription.type === e.newDescription.type) return;
    report("mongodb topology changed", { from: e.previousDescription.type, to: e.newDescription.type });
  });
};
