import type { z } from "zod";

/**
 * Plain readers of query and path parameters. zod parsing `?ids=1` cost more than the whole rest of a keyed read
 * in the server (issue 13's bisection), so each parameter schema may carry a plain reader of its usual text
 * (`ids=1,2`, `limit=50`, `/pets/7`). A reader answers only what it is sure zod would answer, and `undefined`
 * for anything else: zod then decides, and explains a refusal. The readers sit next to their schemas
 * (schemas.ts), and test/http/plain-params.test.ts checks every one against zod.
 */
export type PlainReader<T> = (text: string) => T | undefined;

/** What the pipeline hands over: one string per name, an array for a repeated name. */
export type RawParams = Record<string, string | string[]>;

export type PlainParser = (raw: RawParams) => Record<string, unknown> | undefined;

/** 1 to 15 digits without a leading zero: always a safe integer, and always an int64. */
const plainIdText = /^[1-9]\d{0,14}$/;
export const plainInt64: PlainReader<number> = (text) => (plainIdText.test(text) ? Number(text) : undefined);

const upToThreeDigits = /^\d{1,3}$/;
export const plainLimit =
  (max: number): PlainReader<number> =>
  (text) => {
    if (!upToThreeDigits.test(text)) return undefined;
    const n = Number(text);
    return n >= 1 && n <= max ? n : undefined;
  };

export const plainEnum =
  <const T extends string>(values: readonly T[]): PlainReader<T> =>
  (text) =>
    (values as readonly string[]).includes(text) ? (text as T) : undefined;

export const plainBoolean: PlainReader<boolean> = (text) => (text === "true" ? true : text === "false" ? false : undefined);

/** A comma-separated list of at most `max` items. */
export const plainList =
  <T>(item: PlainReader<T>, max: number): PlainReader<T[]> =>
  (text) => {
    const parts = text.split(",");
    if (parts.length > max) return undefined;
    const items: T[] = [];
    for (const part of parts) {
      const value = item(part);
      if (value === undefined) return undefined;
      items.push(value);
    }
    return items;
  };

type Shape<S extends z.ZodObject> = S["shape"];
export type PlainReaders<S extends z.ZodObject> = { [K in keyof Shape<S>]-?: PlainReader<Exclude<z.output<Shape<S>[K]>, undefined>> };

const parsers = new WeakMap<z.ZodObject, PlainParser>();
const REQUIRED = Symbol("required");

/**
 * Gives a strict object schema of text parameters a plain parser: every name read by its reader, a missing one as
 * zod has it (its default, absent, or — when required — zod's to refuse), any other name zod's to refuse.
 */
export const plainly = <S extends z.ZodObject>(schema: S, readers: PlainReaders<S>): S => {
  const names = Object.keys(schema.shape);
  const read = names.map((name) => (readers as Record<string, PlainReader<unknown>>)[name]!);
  const absent = names.map((name) => {
    const missing = (schema.shape[name] as z.ZodType).safeParse(undefined);
    return missing.success ? missing.data : REQUIRED;
  });
  parsers.set(schema, (raw) => {
    const parsed: Record<string, unknown> = {};
    let given = 0;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (!Object.hasOwn(raw, name)) {
        const value = absent[i];
        if (value === REQUIRED) return undefined;
        if (value !== undefined) parsed[name] = value;
        continue;
      }
      const text = raw[name];
      if (typeof text !== "string") return undefined;
      const value = read[i]!(text);
      if (value === undefined) return undefined;
      parsed[name] = value;
      given++;
    }
    return Object.keys(raw).length === given ? parsed : undefined;
  });
  return schema;
};

/** The plain parser of a schema made with `plainly`. */
export const plainParserOf = (schema: z.ZodObject): PlainParser | undefined => parsers.get(schema);
