import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ProblemDetail } from "../../adapters/http/problem.ts";
import { rememberingParser } from "../../adapters/http/validation.ts";

const Query = z.strictObject({
  ids: z
    .string()
    .transform((s) => s.split(",").map(Number))
    .pipe(z.array(z.number().int().positive())),
});

/** The parser under test, and how many times it asked for the raw input (each ask is a parse). */
const counted = () => {
  const read = rememberingParser(Query, "query");
  let asked = 0;
  const rawOf = (text: string) => {
    asked += 1;
    return Object.fromEntries(new URLSearchParams(text));
  };
  return {
    parse: (text: string, details: ProblemDetail[] = []) => read(text, rawOf, text, details),
    asked: () => asked,
  };
};

describe("rememberingParser", () => {
  it("parses a text once: the same text again gets the same result, frozen to the bottom", () => {
    const { parse, asked } = counted();
    const first = parse("ids=1,2");
    const second = parse("ids=1,2");

    expect(first).toEqual({ ids: [1, 2] });
    expect(second).toBe(first);
    expect(asked()).toBe(1);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first!.ids)).toBe(true);
    expect(() => first!.ids.push(3)).toThrow(TypeError);
  });

  it("does not remember a refusal: each one is parsed again and explained in the details", () => {
    const { parse, asked } = counted();
    for (let i = 0; i < 2; i++) {
      const details: ProblemDetail[] = [];
      expect(parse("ids=0", details)).toBeUndefined();
      expect(details).toEqual([{ path: "query.ids.0", message: expect.any(String) }]);
    }
    expect(asked()).toBe(2);
  });

  it("keeps at most 256 texts and none longer than 256 characters, so clients cannot grow it", () => {
    const { parse, asked } = counted();
    const long = `ids=${"1,".repeat(200)}1`;
    parse(long);
    parse(long);
    expect(asked()).toBe(2);

    for (let id = 1; id <= 256; id++) parse(`ids=${id}`);
    expect(asked()).toBe(258);
    parse("ids=1");
    expect(asked()).toBe(258);
    // The 257th text starts the memo over: the first is parsed again.
    parse("ids=257");
    parse("ids=1");
    expect(asked()).toBe(260);
  });
});
