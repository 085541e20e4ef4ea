import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { MongoNetworkError, type MongoClient } from "mongodb";
import type { DriverEventSink } from "./driver-events.ts";

export interface ClosedSocketWrites {
  stop(): void;
}

/** Sockets already told, when more than one client watches the same servers. */
const failed = new WeakSet<Socket>();

const endpoint = (host: string, port: number): string => `${host.toLowerCase()}:${port}`;
/** "host:port" or "[v6]:port", as the driver names a server. */
const endpointOf = (address: string): string => {
  const colon = address.lastIndexOf(":");
  return endpoint(address.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), Number(address.slice(colon + 1)));
};

/**
 * Fails, with a network error, a write that waits for `drain` on one of the client's sockets when that socket closes.
 *
 * The driver (mongodb 7.9) writes a command and, when the socket's buffer is full, waits for `drain` or `error`, with
 * no time-out. A write made after the socket was destroyed but before it reported itself closed (a peer's FIN ends
 * and destroys it; `close` comes a turn later) gets neither: it waits for ever. A heartbeat waiting so wedges the
 * server's monitor, a command holds its pooled connection (docs/operations.md, "Reconnection"). A closed socket never
 * drains, so failing the write at `close` is always right; the driver handles the error as any network error (the
 * monitor checks again, a retryable write is retried).
 *
 * Node's `net.client.socket` channel shows every client socket the process opens; only those to a server the client
 * knows (its seed list and every server it opened since) are touched.
 */
export const failWritesOnClosedSockets = (
  client: MongoClient,
  report: DriverEventSink = () => undefined,
): ClosedSocketWrites => {
  const servers = new Set(
    client.options.hosts.flatMap((h) => (h.host === undefined ? [] : [endpoint(h.host, h.port ?? 27017)])),
  );
  client.on("serverOpening", (e) => servers.add(endpointOf(e.address)));

  const watch = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    let host: string | undefined;
    const endpoints: string[] = [];
    socket.on("lookup", (_error: Error | null, _address: string, _family: number, name: string) => (host = name));
    socket.on("connectionAttempt", (ip: string, port: number) => {
      endpoints.push(endpoint(ip, port));
      if (host !== undefined) endpoints.push(endpoint(host, port));
    });
    socket.once("close", () => {
      if (failed.has(socket) || socket.listenerCount("drain") === 0 || socket.listenerCount("error") === 0) return;
      const address = endpoints.find((e) => servers.has(e));
      if (address === undefined) return;
      failed.add(socket);
      report("mongodb write on a closed socket failed", { address }, "warn");
      socket.emit("error", new MongoNetworkError(`connection to ${address} closed while a command was being written`));
    });
  };
  subscribe("net.client.socket", watch);
  return { stop: () => unsubscribe("net.client.socket", watch) };
};
