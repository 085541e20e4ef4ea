import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../bootstrap/logger.ts";

const capture = () => {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger("debug", (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) };
};

describe("logger", () => {
  it("never writes a secret field, at any depth, in objects and arrays", () => {
    const { lines, logger } = capture();
    logger.info("call", {
      apiKey: "pk_top",
      request: { headers: { "x-api-key": "pk_header", accept: "*/*" }, attempts: [{ token: "t1", n: 1 }, { n: 2 }] },
      Authorization: "Bearer x",
    });
    const [line] = lines;
    expect(line).toMatchObject({
      level: "info",
      message: "call",
      apiKey: "[redacted]",
      Authorization: "[redacted]",
      request: {
        headers: { "x-api-key": "[redacted]", accept: "*/*" },
        attempts: [{ token: "[redacted]", n: 1 }, { n: 2 }],
      },
    });
    expect(JSON.stringify(lines)).not.toMatch(/pk_top|pk_header|t1|Bearer/);
  });

  it("leaves the caller's fields as they were", () => {
    const { logger } = capture();
    const fields = { nested: { secret: "s", keep: 1 }, list: [{ password: "p" }] };
    logger.warn("w", fields);
    expect(fields).toEqual({ nested: { secret: "s", keep: 1 }, list: [{ password: "p" }] });
  });

  it("writes fields without secrets as given, and nothing below its level", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (line) => lines.push(line));
    logger.debug("hidden", { a: 1 });
    logger.info("request", { requestId: "r1", method: "GET", path: "/pets", status: 200, keyId: 3 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      message: "request",
      requestId: "r1",
      method: "GET",
      path: "/pets",
      status: 200,
      keyId: 3,
    });
  });
});

describe("logger lines", () => {
  it("are one JSON object each, with time, level and message first, whatever the fields", () => {
    const lines: string[] = [];
    const logger = createLogger("debug", (line) => lines.push(line));
    logger.info("no fields");
    logger.error('quoted "message"\n', { nested: { a: [1, "two"] } });
    logger.warn("overridden", { message: "from fields", level: "custom" });
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(parsed[0]!)).toEqual(["time", "level", "message"]);
    expect(parsed[1]).toMatchObject({ level: "error", message: 'quoted "message"\n', nested: { a: [1, "two"] } });
    expect(parsed[2]).toMatchObject({ message: "from fields", level: "custom" });
    expect(lines[2]!.match(/"message"/g)).toHaveLength(1);
    for (const line of parsed) expect(new Date(line.time as string).toISOString()).toBe(line.time);
  });
});

describe("logger lines of flat fields (the access log's way)", () => {
  /** What the general way writes: the line JSON.stringify makes of time, level, message and the redacted fields. */
  const general = (line: string, level: string, message: string, fields: Record<string, unknown>) => {
    const time = (JSON.parse(line) as { time: string }).time;
    const shown = Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [
        k,
        /^(x-api-key|api-?key|key|secret|authorization|password|token)$/i.test(k) ? "[redacted]" : v,
      ]),
    );
    return JSON.stringify({ time, level, message, ...shown });
  };
  /** Strings near what JSON.stringify escapes: quotes, backslashes, control characters, lone and paired surrogates. */
  const edgyText = fc.string({
    unit: fc.constantFrom(
      "a",
      "/",
      '"',
      "\\",
      "\u0000",
      "\n",
      "\u001a",
      "\u001f",
      " ",
      "\u007f",
      "é",
      "\u2028",
      "\ud800",
      "\udbff",
      "\udc00",
      "\udfff",
      "😀",
    ),
  });
  const flatValue = fc.oneof(
    edgyText,
    fc.string({ unit: "binary" }),
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.constantFrom(
      0,
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      true,
      false,
      null,
      undefined,
    ),
  );
  const name = fc.oneof(
    fc.string(),
    fc.constantFrom(
      "requestId",
      "path",
      "status",
      "keyId",
      "token",
      "Secret",
      "x-api-key",
      "0",
      "12",
      "4294967294",
      "4294967295",
      "01",
      "__proto__",
    ),
  );

  it("are, character for character, what the general way writes", () => {
    fc.assert(
      fc.property(fc.dictionary(name, flatValue, { maxKeys: 8 }), fc.string({ unit: "binary" }), (fields, message) => {
        const lines: string[] = [];
        createLogger("debug", (line) => lines.push(line)).warn(message, fields);
        expect(lines[0]).toBe(general(lines[0]!, "warn", message, fields));
      }),
      { numRuns: 3_000 },
    );
  });

  it("take the general way for nested values and for fields named like the line's own", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (line) => lines.push(line));
    logger.info("m", { a: 1, nested: { token: "t", b: [1, { secret: "s" }] } });
    logger.info("m", { time: "then", status: 200 });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      a: 1,
      nested: { token: "[redacted]", b: [1, { secret: "[redacted]" }] },
    });
    expect(lines[1]).toMatch(/^\{"time":"then","level":"info","message":"m","status":200\}$/);
  });
});
