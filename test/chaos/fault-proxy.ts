/**
 * A TCP proxy between MongoDB clients and a server, loopback only, that injects network faults at command boundaries:
 * it reads the wire protocol's message headers (OP_MSG, and OP_QUERY/OP_REPLY for the first handshake) and the first
 * key of each command (BSON, through the driver's own `bson`). What it can do:
 *
 * - hold a command's bytes (and everything after them on that connection) and deliver them late, even after the
 *   client gave up and closed: a write that reaches the server long after its caller was told it failed;
 * - cut a command before it reaches the server, or after the server applied it (its answer dropped), closing the
 *   client's connection with a FIN or a RST;
 * - close every connection at once with a FIN or a RST, and refuse new connections (ECONNREFUSED);
 * - answer the handshake (`hello`, `isMaster`) as the primary of a one-member replica set whose only host is the
 *   proxy itself, so the driver uses retryable writes (it retries a write once after a network error, with the same
 *   session and transaction number) as it does against a production replica set.
 */
import net from "node:net";
import { BSON } from "mongodb";

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const HEADER_BYTES = 16;

export type Close = "fin" | "rst";

/** A command the client sent, as the proxy sees it. */
export interface SeenCommand {
  name: string;
  /** The collection the command names (the first key's value when it is a string). */
  collection: string | undefined;
  /** The connection it came on: `conn` ids count up from 1. */
  conn: number;
  /** Set when the command carries a transaction number (a retryable write). */
  txnNumber: string | undefined;
}

export type CommandMatch = (command: SeenCommand) => boolean;

export type Fault =
  /** Forward it untouched: to wait until such a command comes. */
  | { kind: "pass" }
  /** Hold the command's bytes for `ms`, then deliver them (and what followed on the connection); a late answer is dropped. */
  | { kind: "hold"; ms: number }
  /** Never deliver: the client's socket time-out ends it. */
  | { kind: "blackhole" }
  /**
   * Close the client's connection instead of forwarding the command (before; `afterMs` later, the command held till
   * then), or once the server answered it (after).
   */
  | { kind: "cut"; when: "before" | "after"; how: Close; afterMs?: number };

export interface FaultProxyOptions {
  /** The server, "host:port" on loopback. */
  target: string;
  /** Answer the handshake as the primary of this replica set. */
  replicaSet?: string;
}

/** Handshake and monitoring commands: never what a fault is meant for unless asked. */
const HANDSHAKE = new Set(["hello", "isMaster", "ismaster"]);

/** Any command but the handshake and monitoring ones. */
export const anyCommand: CommandMatch = (c) => !HANDSHAKE.has(c.name);
/** Writes (what retryable writes cover), optionally on one collection. */
export const writeCommand =
  (collection?: string): CommandMatch =>
  (c) =>
    ["insert", "update", "delete", "findAndModify"].includes(c.name) &&
    (collection === undefined || c.collection === collection);

interface Armed {
  fault: Fault;
  match: CommandMatch;
  fired: (command: SeenCommand) => void;
}

const isLoopback = (host: string) => host === "localhost" || host === "::1" || /^127\./.test(host);

/** Splits a byte stream into whole wire messages. */
class MessageReader {
  #buffer: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): Buffer[] {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    const messages: Buffer[] = [];
    while (this.#buffer.length >= 4) {
      const length = this.#buffer.readInt32LE(0);
      if (length < HEADER_BYTES || this.#buffer.length < length) break;
      messages.push(this.#buffer.subarray(0, length));
      this.#buffer = this.#buffer.subarray(length);
    }
    return messages;
  }
}

/** The body document of an OP_MSG (its kind 0 section) or OP_QUERY, or undefined. */
const commandDocument = (message: Buffer): BSON.Document | undefined => {
  const opCode = message.readInt32LE(12);
  if (opCode === OP_MSG) {
    let at = HEADER_BYTES + 4;
    while (at < message.length) {
      const kind = message[at]!;
      at += 1;
      if (kind === 0) return BSON.deserialize(message.subarray(at, at + message.readInt32LE(at)));
      at += message.readInt32LE(at);
    }
    return undefined;
  }
  if (opCode === OP_QUERY) {
    const nameEnd = message.indexOf(0, HEADER_BYTES + 4);
    const at = nameEnd + 1 + 8;
    return BSON.deserialize(message.subarray(at, at + message.readInt32LE(at)));
  }
  return undefined;
};

const header = (length: number, requestId: number, responseTo: number, opCode: number): Buffer => {
  const h = Buffer.alloc(HEADER_BYTES);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestId, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
};

/** The reply with its one document replaced (OP_MSG without checksum, or OP_REPLY). */
const withDocument = (reply: Buffer, document: BSON.Document): Buffer => {
  const body = Buffer.from(BSON.serialize(document));
  const requestId = reply.readInt32LE(4);
  const responseTo = reply.readInt32LE(8);
  const opCode = reply.readInt32LE(12);
  if (opCode === OP_MSG) {
    const flags = Buffer.alloc(5);
    // Flags as they were, less the checksum (the body changed); then one kind 0 section.
    flags.writeUInt32LE(reply.readUInt32LE(HEADER_BYTES) & ~1, 0);
    flags[4] = 0;
    return Buffer.concat([header(HEADER_BYTES + 5 + body.length, requestId, responseTo, OP_MSG), flags, body]);
  }
  const fields = Buffer.from(reply.subarray(HEADER_BYTES, HEADER_BYTES + 20));
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(HEADER_BYTES + 20 + body.length, requestId, responseTo, OP_REPLY), fields, body]);
};

const replyDocument = (reply: Buffer): BSON.Document | undefined => {
  const opCode = reply.readInt32LE(12);
  if (opCode === OP_MSG) return commandDocument(reply);
  if (opCode === OP_REPLY) {
    const at = HEADER_BYTES + 20;
    return BSON.deserialize(reply.subarray(at, at + reply.readInt32LE(at)));
  }
  return undefined;
};

const closeSocket = (socket: net.Socket, how: Close): void => {
  if (socket.destroyed) return;
  if (how === "rst") socket.resetAndDestroy();
  else socket.end();
};

export interface FaultProxyStats {
  /** Commands seen from clients, handshakes included. */
  commands: number;
  /** Commands delivered late, after being held. */
  deliveredLate: number;
  /** Held commands delivered after their client had closed its connection. */
  deliveredAfterClientLeft: number;
  /** Writes sent again with a transaction number already seen: the driver's retries. */
  retriedWrites: number;
  connections: number;
}

export class FaultProxy {
  readonly #options: FaultProxyOptions;
  readonly #server = net.createServer({ allowHalfOpen: false });
  readonly #connections = new Set<{ client: net.Socket; upstream: net.Socket }>();
  readonly #armed: Armed[] = [];
  readonly #txnSeen = new Set<string>();
  #port = 0;
  #refusing = false;
  #held = 0;
  #nextConn = 1;
  readonly stats: FaultProxyStats = {
    commands: 0,
    deliveredLate: 0,
    deliveredAfterClientLeft: 0,
    retriedWrites: 0,
    connections: 0,
  };
  /** Every command seen, in order (handshakes included): for tests that check what the driver sent. */
  readonly seen: SeenCommand[] = [];

  private constructor(options: FaultProxyOptions) {
    this.#options = options;
    this.#server.on("connection", (client) => this.#accept(client));
  }

  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const [host] = options.target.split(":");
    if (!isLoopback(host ?? "")) throw new Error(`the fault proxy forwards to loopback only (got ${options.target})`);
    const proxy = new FaultProxy(options);
    await proxy.#listen(0);
    return proxy;
  }

  /** "127.0.0.1:port": the address clients connect to (and, as a replica set, the set's only host). */
  get host(): string {
    return `127.0.0.1:${this.#port}`;
  }

  /** A connection string through the proxy: as a replica set when the proxy claims one. */
  url(extra = ""): string {
    const set = this.#options.replicaSet;
    const query = set ? `replicaSet=${set}` : "directConnection=true";
    return `mongodb://${this.host}/?${query}${extra ? `&${extra}` : ""}`;
  }

  /** The next command that matches gets the fault; resolves with it once it fired. */
  arm(fault: Fault, match: CommandMatch = anyCommand): Promise<SeenCommand> {
    return new Promise((fired) => this.#armed.push({ fault, match, fired }));
  }

  /** Commands held now, to be delivered late. */
  get held(): number {
    return this.#held;
  }

  /** Faults armed and not yet fired are dropped. */
  disarm(): void {
    this.#armed.splice(0);
  }

  /** Closes every open connection now, the client's side with a FIN or a RST. */
  cutAll(how: Close): number {
    const open = [...this.#connections];
    for (const { client, upstream } of open) {
      closeSocket(client, how);
      upstream.destroy();
    }
    return open.length;
  }

  /** Stops accepting (new connections are refused) or accepts again, on the same port. */
  async refuse(refusing: boolean): Promise<void> {
    if (refusing === this.#refusing) return;
    this.#refusing = refusing;
    // close() stops listening at once; its callback would wait for the open connections.
    if (refusing) this.#server.close();
    else await this.#listen(this.#port);
  }

  async close(): Promise<void> {
    this.disarm();
    this.cutAll("rst");
    if (!this.#refusing) this.#server.close();
  }

  #listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, "127.0.0.1", () => {
        this.#server.off("error", reject);
        this.#port = (this.#server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  #take(command: SeenCommand): Armed | undefined {
    const index = this.#armed.findIndex((a) => a.match(command));
    if (index < 0) return undefined;
    const [armed] = this.#armed.splice(index, 1);
    armed!.fired(command);
    return armed;
  }

  #rewriteHello(reply: Buffer): Buffer {
    const document = replyDocument(reply);
    if (!document || document.ok !== 1) return reply;
    const me = this.host;
    return withDocument(reply, {
      ...document,
      ...("isWritablePrimary" in document ? { isWritablePrimary: true } : { ismaster: true }),
      secondary: false,
      setName: this.#options.replicaSet,
      setVersion: 1,
      electionId: new BSON.ObjectId("7fffffff0000000000000001"),
      hosts: [me],
      primary: me,
      me,
    });
  }

  #accept(client: net.Socket): void {
    const conn = this.#nextConn++;
    this.stats.connections++;
    const [host, port] = this.#options.target.split(":");
    const upstream = net.connect({ host: host!, port: Number(port) });
    const pair = { client, upstream };
    this.#connections.add(pair);
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
    upstream.setNoDelay(true);
    client.setNoDelay(true);

    const helloRequests = new Set<number>();
    const cutAfter = new Map<number, Close>();
    // While a command is held, everything after it on this connection waits behind it (in order).
    const waiting: Buffer[] = [];
    let holding = false;
    let blackholed = false;
    let clientGone = false;
    /** Commands sent to the server and not answered yet: a connection whose client left closes once they are. */
    let unanswered = 0;

    const endWhenAnswered = () => {
      if (clientGone && !holding && unanswered === 0) upstream.end();
    };
    const toServer = (message: Buffer) => {
      if (upstream.destroyed) return;
      // OP_MSG's moreToCome flag (bit 1): the server sends no answer.
      const answered = message.readInt32LE(12) !== OP_MSG || (message.readUInt32LE(HEADER_BYTES) & 2) === 0;
      if (answered) unanswered++;
      upstream.write(message);
    };
    const release = () => {
      holding = false;
      while (waiting.length && !holding) forward(waiting.shift()!);
      endWhenAnswered();
    };
    const forward = (message: Buffer) => {
      if (holding) return void waiting.push(message);
      const requestId = message.readInt32LE(4);
      const document = commandDocument(message);
      const name = document ? (Object.keys(document)[0] ?? "") : "";
      const first = document?.[name];
      const txn = document?.txnNumber === undefined ? undefined : String(document.txnNumber);
      const command: SeenCommand = {
        name,
        collection: typeof first === "string" ? first : undefined,
        conn,
        txnNumber: txn,
      };
      this.stats.commands++;
      this.seen.push(command);
      if (txn !== undefined && document?.lsid) {
        const key = `${BSON.EJSON.stringify(document.lsid)} ${txn}`;
        if (this.#txnSeen.has(key)) this.stats.retriedWrites++;
        this.#txnSeen.add(key);
      }
      if (HANDSHAKE.has(name) && this.#options.replicaSet) helloRequests.add(requestId);
      const armed = this.#take(command);
      const fault = armed?.fault;
      if (fault?.kind === "cut" && fault.when === "before") {
        const cut = () => {
          closeSocket(client, fault.how);
          upstream.destroy();
        };
        if (fault.afterMs === undefined) return cut();
        holding = blackholed = true;
        setTimeout(cut, fault.afterMs).unref();
        return;
      }
      if (fault?.kind === "cut") cutAfter.set(requestId, fault.how);
      if (fault?.kind === "blackhole") {
        holding = blackholed = true;
        return;
      }
      if (fault?.kind === "hold") {
        holding = true;
        this.#held++;
        setTimeout(() => {
          this.#held--;
          this.stats.deliveredLate++;
          if (clientGone) this.stats.deliveredAfterClientLeft++;
          toServer(message);
          release();
        }, fault.ms).unref();
        return;
      }
      toServer(message);
    };

    const fromClient = new MessageReader();
    client.on("data", (chunk: Buffer) => {
      for (const message of fromClient.push(chunk)) forward(message);
    });
    const fromServer = new MessageReader();
    upstream.on("data", (chunk: Buffer) => {
      for (let message of fromServer.push(chunk)) {
        unanswered = Math.max(0, unanswered - 1);
        const responseTo = message.readInt32LE(8);
        const how = cutAfter.get(responseTo);
        if (how) {
          closeSocket(client, how);
          upstream.destroy();
          return;
        }
        if (helloRequests.delete(responseTo)) message = this.#rewriteHello(message);
        if (!clientGone && !client.destroyed) client.write(message);
      }
      endWhenAnswered();
    });
    client.on("close", () => {
      clientGone = true;
      // A held command is still delivered, late, on its own connection, which stays open until the server answered
      // (an engine may cancel a command whose connection closes); the answer goes nowhere.
      if (blackholed) upstream.destroy();
      else endWhenAnswered();
    });
    upstream.on("close", () => {
      this.#connections.delete(pair);
      if (!client.destroyed) client.end();
    });
  }
}
