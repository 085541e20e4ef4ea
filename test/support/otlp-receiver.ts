/**
 * A stand-in OpenTelemetry collector on loopback: POST /v1/traces in OTLP/HTTP, protobuf or JSON, every span kept
 * with its resource. The protobuf is read with a few lines of wire-format decoding (no generated code).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  /** The body's content type: which encoding the exporter used. */
  encoding: string;
}

type Wire = bigint | Buffer;
/** A protobuf message as its fields: number → values in order (varints and fixed numbers as bigint, the rest bytes). */
const decode = (buffer: Buffer): Map<number, Wire[]> => {
  const fields = new Map<number, Wire[]>();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    let value: Wire;
    if ((key & 7) === 0) value = varint();
    else if ((key & 7) === 1) {
      value = buffer.readBigUInt64LE(at);
      at += 8;
    } else if ((key & 7) === 2) {
      const length = Number(varint());
      value = buffer.subarray(at, at + length);
      at += length;
    } else if ((key & 7) === 5) {
      value = BigInt(buffer.readUInt32LE(at));
      at += 4;
    } else throw new Error(`unexpected wire type ${key & 7}`);
    fields.set(key >> 3, [...(fields.get(key >> 3) ?? []), value]);
  }
  return fields;
};
const bytes = (fields: Map<number, Wire[]>, n: number): Buffer[] => (fields.get(n) ?? []) as Buffer[];
const first = (fields: Map<number, Wire[]>, n: number): Wire | undefined => fields.get(n)?.[0];

/** KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string 1, bool 2, int 3, double 4 }. */
const protobufAttributes = (list: Buffer[]): Record<string, unknown> =>
  Object.fromEntries(
    list.map((kv) => {
      const fields = decode(kv);
      const value = decode((first(fields, 2) as Buffer | undefined) ?? Buffer.alloc(0));
      const text = first(value, 1);
      const flag = first(value, 2);
      const whole = first(value, 3);
      return [
        (first(fields, 1) as Buffer).toString("utf8"),
        text !== undefined
          ? (text as Buffer).toString("utf8")
          : flag !== undefined
            ? flag === 1n
            : whole !== undefined
              ? Number(BigInt.asIntN(64, whole as bigint))
              : undefined,
      ];
    }),
  );

const fromProtobuf = (body: Buffer): Omit<ExportedSpan, "encoding">[] =>
  bytes(decode(body), 1).flatMap((resourceSpans) => {
    const rs = decode(resourceSpans);
    const resource = protobufAttributes(bytes(decode((first(rs, 1) as Buffer) ?? Buffer.alloc(0)), 1));
    return bytes(rs, 2).flatMap((scopeSpans) =>
      bytes(decode(scopeSpans), 2).map((raw) => {
        const span = decode(raw);
        const hex = (n: number) => ((first(span, n) as Buffer | undefined) ?? Buffer.alloc(0)).toString("hex");
        return {
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: (first(span, 5) as Buffer).toString("utf8"),
          kind: Number(first(span, 6) ?? 0n),
          startNs: first(span, 7) as bigint,
          endNs: first(span, 8) as bigint,
          attributes: protobufAttributes(bytes(span, 9)),
          resource,
        };
      }),
    );
  });

type JsonValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type JsonAttributes = { key: string; value: JsonValue }[] | undefined;
const jsonAttributes = (list: JsonAttributes): Record<string, unknown> =>
  Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue)),
    ]),
  );
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: JsonAttributes;
}
const fromJson = (body: Buffer): Omit<ExportedSpan, "encoding">[] =>
  (
    JSON.parse(body.toString("utf8")) as {
      resourceSpans: { resource: { attributes: JsonAttributes }; scopeSpans: { spans: JsonSpan[] }[] }[];
    }
  ).resourceSpans.flatMap(({ resource, scopeSpans }) =>
    scopeSpans.flatMap(({ spans }) =>
      spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: jsonAttributes(span.attributes),
        resource: jsonAttributes(resource.attributes),
      })),
    ),
  );

export interface OtlpReceiver {
  endpoint: string;
  spans: ExportedSpan[];
  /** Waits (the exporter sends in batches) until a span matches, or fails listing what came. */
  find(match: (span: ExportedSpan) => boolean, what: string): Promise<ExportedSpan>;
  close(): Promise<void>;
}

export const startOtlpReceiver = async (): Promise<OtlpReceiver> => {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      const encoding = request.headers["content-type"] ?? "";
      const body = Buffer.concat(chunks);
      const decoded = encoding.includes("protobuf") ? fromProtobuf(body) : fromJson(body);
      spans.push(...decoded.map((span) => ({ ...span, encoding })));
      response.writeHead(200, { "content-type": encoding }).end(encoding.includes("json") ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    async find(match, what) {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const found = spans.find(match);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no ${what} among ${spans.length} spans: ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
