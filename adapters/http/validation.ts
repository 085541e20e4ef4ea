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
