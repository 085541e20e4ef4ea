import { writeSync } from "node:fs";
/** Structured JSON lines on stdout; the one logging seam of the service. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

/** Fields that may hold a secret are never written, wherever they sit (a safety net: nothing should pass one). */
const secretField = /^(x-api-key|api-?key|key|secret|authorization|password|token)$/i;
/** Field names are few: each is tested once (up to a bound, so odd names cannot grow it). */
const secretNames = new Map<string, boolean>();
const isSecret = (name: string): boolean => {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = secretField.test(name);
    if (secretNames.size < 1_000) secretNames.set(name, secret);
  }
  return secret;
};
/** The value with every secret field replaced; a value without one is returned as it is (no copy). */
const redacted = (value: unknown, depth = 0): unknown => {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = value.map((v) => redacted(v, depth + 1));
    return items.some((v, i) => v !== value[i]) ? items : value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    const safe = isSecret(k) ? "[redacted]" : redacted(v, depth + 1);
    if (safe !== v) (copy ??= { ...value })[k] = safe;
  }
  return copy ?? value;
};

/** Where lines go: written in batches by the caller's choice of `flush`. */
export interface LineSink {
  write(line: string): void;
  /** Writes every pending line now. */
  flush(): void;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` before returning, waiting out a full pipe: process.exit would drop what process.stdout queues,
 * and a reader that does not keep up should slow the logger rather than grow a buffer.
 */
export const writeAllSync = (fd: number, text: string | Uint8Array): void => {
  let bytes = typeof text === "string" ? Buffer.from(text) : text;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
};

/** Where a batch goes: `write` is done with the bytes when it returns (the batch's buffer is used again). */
export interface ChunkOut {
  write(chunk: Uint8Array): unknown;
}

const stdoutFd: ChunkOut = { write: (chunk) => writeAllSync(1, chunk) };

/** How long a line may wait to be written with others; a warning or an error is written at once. */
export const LINE_DELAY_MS = 20;
/** How many bytes of lines may wait. */
const BATCH_BYTES = 65_536;
/** The most bytes UTF-8 takes for one UTF-16 code unit of a string. */
const MAX_UTF8_PER_UNIT = 3;

/**
 * Lines are encoded into one buffer and written together after `delayMs` (at once for warnings and errors, and on
 * flush or exit), so logging costs a write per batch rather than per line.
 */
export const batchedLines = (
  out: ChunkOut = stdoutFd,
  onExit: (flush: () => void) => void = (f) => process.once("exit", f),
  delayMs = LINE_DELAY_MS,
): LineSink => {
  const batch = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (used === 0) return;
    const chunk = batch.subarray(0, used);
    used = 0;
    out.write(chunk);
  };
  onExit(flush);
  return {
    write(line) {
      // At most 3 bytes a code unit, and the newline; counted exactly only when that may not fit.
      let size = line.length * MAX_UTF8_PER_UNIT + 1;
      if (used + size > BATCH_BYTES) size = Buffer.byteLength(line) + 1;
      if (used + size > BATCH_BYTES) flush();
      if (size > BATCH_BYTES) {
        out.write(Buffer.from(`${line}\n`));
        return;
      }
      used += batch.write(line, used);
      batch[used++] = 0x0a;
      // Unref'd: waiting lines never keep the process alive (they are written when it exits).
      timer ??= setTimeout(flush, delayMs).unref();
    },
    flush,
  };
};

let stdoutLines: LineSink | undefined;
/** The process's one batched stdout. */
export const stdoutSink = (): LineSink => (stdoutLines ??= batchedLines());

/** The time of a line: lines written within the same millisecond share one formatted date. */
let lastMs = Number.NaN;
let lastIso = "";
const isoNow = (): string => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
};

/** Lines to stdout, batched; `urgent` ones (warnings, errors) written at once, with whatever waits before them. */
const toStdout = (line: string, urgent: boolean) => {
  const sink = stdoutSink();
  sink.write(line);
  if (urgent) sink.flush();
};

/** An array index: JavaScript orders such names before all others, so JSON.stringify writes them before `time`. */
const isIndex = (name: string): boolean => /^(?:0|[1-9]\d*)$/.test(name) && Number(name) < 2 ** 32 - 1;

/**
 * What a field adds to a line before its value: `,"name":`; undefined for the names the line starts with, and for
 * the names written before them.
 */
const fieldPrefixes = new Map<string, string | undefined>();
const prefixOf = (name: string): string | undefined => {
  let prefix = fieldPrefixes.get(name);
  if (prefix === undefined && !fieldPrefixes.has(name)) {
    prefix =
      name === "time" || name === "level" || name === "message" || isIndex(name)
        ? undefined
        : `,${JSON.stringify(name)}:`;
    if (fieldPrefixes.size < 1_000) fieldPrefixes.set(name, prefix);
  }
  return prefix;
};

/** A string that JSON.stringify writes as it is, between quotes: no quote, backslash, control character or surrogate. */
const plainText = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
/** What JSON.stringify writes for a string; the usual field (an id, a method, a path) without calling it. */
const quoted = (value: string): string => (plainText.test(value) ? `"${value}"` : JSON.stringify(value));

/**
 * The line's fields when every one is a string, a number, a boolean, null or undefined (an access-log entry, say),
 * written without the generic copy and serialisation: exactly what `JSON.stringify` writes for them. Undefined for
 * anything else (an object, a field named like the line's own or like an array index), which takes the general way.
 */
const flatFields = (fields: Record<string, unknown>): string | undefined => {
  let text = "";
  for (const name of Object.keys(fields)) {
    const prefix = prefixOf(name);
    if (prefix === undefined) return undefined;
    if (isSecret(name)) {
      text += `${prefix}"[redacted]"`;
      continue;
    }
    const value = fields[name];
    switch (typeof value) {
      case "string":
        text += prefix + quoted(value);
        break;
      case "number":
        text += prefix + (Number.isFinite(value) ? String(value) : "null");
        break;
      case "boolean":
        text += prefix + String(value);
        break;
      case "undefined":
        break;
      default:
        if (value !== null) return undefined;
        text += `${prefix}null`;
    }
  }
  return text;
};

export const createLogger = (
  level: keyof typeof levels,
  write: (line: string, urgent: boolean) => void = toStdout,
): Logger => {
  const at = (name: "debug" | "info" | "warn" | "error") => {
    const head = `","level":"${name}","message":`;
    return (message: string, fields: Record<string, unknown> = {}) => {
      if (levels[name] < levels[level]) return;
      const flat = flatFields(fields);
      const line =
        flat === undefined
          ? JSON.stringify({ time: isoNow(), level: name, message, ...(redacted(fields) as object) })
          : `{"time":"${isoNow()}${head}${JSON.stringify(message)}${flat}}`;
      write(line, levels[name] >= levels.warn);
    };
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
};

export const errorFields = (error: unknown): Record<string, unknown> =>
  error instanceof Error
    ? { error: { name: error.name, message: error.message, stack: error.stack } }
    : { error: String(error) };
