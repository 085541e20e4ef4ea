import type { z } from "zod";
import type { ProblemDetail } from "./problem.ts";

export type InputPart = "path" | "query" | "header" | "body";

const pathOf = (where: InputPart, path: readonly PropertyKey[]): string =>
  [where, ...path.map(String)].filter(Boolean).join(".");

/** Parses one part of the input; problems are added to `details`, each named by where it is (`body.name`). */
export const parseInto = <S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: InputPart,
  details: ProblemDetail[],
): z.output<S> | undefined => {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const unknownKeys = issue.code === "unrecognized_keys";
    details.push({
      path: pathOf(where, unknownKeys ? [...issue.path, issue.keys.join(",")] : issue.path),
      message: unknownKeys
        ? `Unknown ${issue.keys.length > 1 ? (where === "body" ? "properties" : "parameters") : where === "body" ? "property" : "parameter"}: ${issue.keys.join(", ")}`
        : issue.message,
    });
  }
  return undefined;
};

const deepFreeze = <T>(value: T): T => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
};

/** Texts remembered per part of a route, and their longest: past that many the memo starts over. */
const MEMO_ENTRIES = 256;
const MEMO_TEXT = 256;

/**
 * `parseInto` for one part of one route, remembering what each text (a path, a query string, a JSON body) parsed to:
 * clients send the same few again and again, and zod is dear in the server (docs/performance.md). Only successes are
 * kept; they are shared between requests, so frozen.
 */
export const rememberingParser = <S extends z.ZodType>(schema: S, where: InputPart) => {
  let memo = new Map<string, z.output<S>>();
  return <A>(
    text: string,
    inputOf: (from: A) => unknown,
    from: A,
    details: ProblemDetail[],
  ): z.output<S> | undefined => {
    const known = memo.get(text);
    if (known !== undefined) return known;
    const parsed = parseInto(schema, inputOf(from), where, details);
    if (parsed !== undefined && text.length <= MEMO_TEXT) {
      if (memo.size >= MEMO_ENTRIES) memo = new Map();
      memo.set(text, deepFreeze(parsed));
    }
    return parsed;
  };
};
