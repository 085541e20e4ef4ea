/**
 * closed-socket-writes.ts on plain sockets: a socket to a server the client knows, closing while something waits for
 * its `drain`, gets a network error; any other socket of the process is left alone.
 */
import net from "node:net";
import { once } from "node:events";
import { MongoClient, MongoNetworkError } from "mongodb";
import { afterEach, expect, it } from "vitest";
import { failWritesOnClosedSockets } from "../../adapters/mongo/closed-socket-writes.ts";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const server = async () => {
  const s = net.createServer((socket) => socket.on("error", () => undefined));
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  cleanup.push(() => new Promise((resolve) => s.close(resolve)));
  return (s.address() as net.AddressInfo).port;
};

/** Connects, waits for 'drain' as the driver does, destroys the socket; what the waiter got once it closed. */
const drainWaitOnClosedSocket = async (port: number) => {
  const socket = net.createConnection({ host: "127.0.0.1", port });
  await once(socket, "connect");
  const got: unknown[] = [];
  socket.once("drain", () => got.push("drain"));
  socket.once("error", (error) => got.push(error));
  // Not events.once: its own 'error' listener would take the error meant for the waiter.
  const closed = new Promise((resolve) => socket.once("close", resolve));
  socket.destroy();
  await closed;
  return got;
};

it("a socket to one of the client's servers, closed while a write waits for 'drain': the write gets a network error", async () => {
  const port = await server();
  // Never connected: the client's seed list is what counts.
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`);
  const reported: string[] = [];
  const watch = failWritesOnClosedSockets(client, (message) => reported.push(message));
  cleanup.push(() => watch.stop());
  const got = await drainWaitOnClosedSocket(port);
  expect(got).toHaveLength(1);
  expect(got[0]).toBeInstanceOf(MongoNetworkError);
  expect(reported).toEqual(["mongodb write on a closed socket failed"]);
});

it("a socket to any other server is left alone, and so is every socket once stopped", async () => {
  const [mine, other] = [await server(), await server()];
  const client = new MongoClient(`mongodb://127.0.0.1:${mine}/?directConnection=true`);
  const watch = failWritesOnClosedSockets(client);
  expect(await drainWaitOnClosedSocket(other)).toEqual([]);
  watch.stop();
  expect(await drainWaitOnClosedSocket(mine)).toEqual([]);
});
