import type { z } from "zod";

/**
 * A plain reader answers a hot schema's usual values faster than zod, and `undefined` for anything it is not sure of,
 * so zod still decides and explains refusals (test/http/plain-input.test.ts checks each reader against zod).
 */
export type PlainReader<T> = (value: unknown) => T | undefined;

/** Query parameters as the pipeline hands them over: one string per name, an array for a repeated name. */
export type RawParams = Record<string, string | string[]>;

export type PlainParser = (raw: unknown) => Record<string, unknown> | undefined;

/** 1 to 15 digits without a leading zero: always a safe integer, and always an int64. */
const plainIdText = /^[1-9]\d{0,14}$/;
export const plainInt64Text: PlainReader<number> = (value) =>
  typeof value === "string" && plainIdText.test(value) ? Number(value) : undefined;

const upToThreeDigits = /^\d{1,3}$/;
export const plainLimitText =
  (max: number): PlainReader<number> =>
  (value) => {
    if (typeof value !== "string" || !upToThreeDigits.test(value)) return undefined;
    const n = Number(value);
    return n >= 1 && n <= max ? n : undefined;
  };

export const plainEnum =
  <const T extends string>(values: readonly T[]): PlainReader<T> =>
  (value) =>
    (values as readonly unknown[]).includes(value) ? (value as T) : undefined;

export const plainBooleanText: PlainReader<boolean> = (value) =>
  value === "true" ? true : value === "false" ? false : undefined;

/** A list of at most `max` items, comma-separated, repeated (`ids=1&ids=2`: an array of strings) or both. */
export const plainListText =
  <T>(item: PlainReader<T>, max: number): PlainReader<T[]> =>
  (value) => {
    const texts = typeof value === "string" ? [value] : Array.isArray(value) ? (value as unknown[]) : undefined;
    if (texts === undefined) return undefined;
    const items: T[] = [];
    for (const text of texts) {
      if (typeof text !== "string") return undefined;
      for (const part of text.split(",")) {
        if (items.length === max) return undefined;
        const read = item(part);
        if (read === undefined) return undefined;
        items.push(read);
      }
    }
    return items;
  };

/** A JSON number that is an integer from `min` to `max`. */
export const plainInteger =
  (min: number, max: number): PlainReader<number> =>
  (value) =>
    typeof value === "number" && Number.isInteger(value) && value >= min && value <= max ? value : undefined;

/** Printable ASCII only: its length in characters is its length in UTF-16 units, and it is always well-formed. */
const printableAscii = /^[\x20-\x7e]*$/;

/** Text trimmed, of `min` to `max` characters: the plain case of printable ASCII; anything else is zod's. */
export const plainAsciiText =
  (min: number, max: number): PlainReader<string> =>
  (value) => {
    if (typeof value !== "string" || !printableAscii.test(value)) return undefined;
    const trimmed = value.trim();
    return trimmed.length >= min && trimmed.length <= max ? trimmed : undefined;
  };

/** Text taken as sent (not trimmed), of `min` to `max` characters: the plain case of printable ASCII. */
export const plainAsciiVerbatim =
  (min: number, max: number): PlainReader<string> =>
  (value) =>
    typeof value === "string" && printableAscii.test(value) && value.length >= min && value.length <= max
      ? value
      : undefined;

/** A value only zod reads (a date, say): present, it sends the whole input to zod. */
export const zodOnly: PlainReader<never> = () => undefined;

type Shape<S extends z.ZodObject> = S["shape"];
export type PlainReaders<S extends z.ZodObject> = {
  [K in keyof Shape<S>]-?: PlainReader<Exclude<z.output<Shape<S>[K]>, undefined>>;
};

const plainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

const parsers = new WeakMap<z.ZodType, PlainParser>();
const REQUIRED = Symbol("required");

/**
 * Gives a strict object schema a plain parser: every property read by its reader, a missing one as zod has it (its
 * default, absent, or — when required — zod's to refuse), anything else zod's: another property, another kind of
 * value than a plain object.
 */
export const plainly = <S extends z.ZodObject>(schema: S, readers: PlainReaders<S>): S => {
  const names = Object.keys(schema.shape);
  const read = names.map((name) => (readers as Record<string, PlainReader<unknown>>)[name]!);
  const absent = names.map((name) => {
    const missing = (schema.shape[name] as z.ZodType).safeParse(undefined);
    return missing.success ? missing.data : REQUIRED;
  });
  parsers.set(schema, (raw) => {
    if (typeof raw !== "object" || raw === null || !plainObject(raw)) return undefined;
    const given = raw as Record<string, unknown>;
    const parsed: Record<string, unknown> = {};
    let count = 0;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (!Object.hasOwn(given, name)) {
        const value = absent[i];
        if (value === REQUIRED) return undefined;
        if (value !== undefined) parsed[name] = value;
        continue;
      }
      const value = read[i]!(given[name]);
      if (value === undefined) return undefined;
      parsed[name] = value;
      count++;
    }
    return Object.keys(given).length === count ? parsed : undefined;
  });
  return schema;
};

/** The plain parser of a schema made with `plainly`. */
export const plainParserOf = (schema: z.ZodType): PlainParser | undefined => parsers.get(schema);
