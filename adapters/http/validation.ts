import type { z } from "zod";
import { HttpProblem, type ProblemDetail } from "./problem.ts";

const pathOf = (where: string, path: readonly PropertyKey[]): string =>
  [where, ...path.map(String)].filter(Boolean).join(".");

/** Parses with a schema or throws 400 validation_failed listing every problem. */
export const parseOrReject = <S extends z.ZodType>(schema: S, input: unknown, where: "body" | "query" | "path"): z.output<S> => {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: ProblemDetail[] = result.error.issues.map((issue) => ({
    path: pathOf(where, issue.code === "unrecognized_keys" ? [...issue.path, issue.keys.join(",")] : issue.path),
    message: issue.code === "unrecognized_keys" ? `Unknown ${issue.keys.length > 1 ? "properties" : "property"}: ${issue.keys.join(", ")}` : issue.message,
  }));
  throw new HttpProblem("validation_failed", `The request ${where} is not valid`, { details });
};
