import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { inexactness, InexactNumber, parseJsonExactly } from "../../adapters/http/json-numbers.ts";

/** The reference: every number checked by the reviver, never the plain parse. */
const withReviverOnly = (text: string): unknown =>
  JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
    const message =
      typeof value === "number" && context?.source !== undefined ? inexactness(value, context.source) : undefined;
    return message === undefined ? value : new InexactNumber(message);
  });

describe("parseJsonExactly", () => {
  it.each([
    ["9007199254740993", true],
    ["12345678901234567", true],
    ["1.0000000000000001", true],
    ["1e400", true],
    ["123456789012345", false],
    ["-0", false],
    ["1e2", false],
    ["100.0", false],
  ])("%s inexact: %s", (text, inexact) => {
    const { n } = parseJsonExactly(`{"n":${text}}`) as { n: unknown };
    expect(n instanceof InexactNumber).toBe(inexact);
  });

  it("reads every body as the reviver would, whether or not it takes the plain parse", () => {
    const number = fc.oneof(
      fc.integer(),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom("1e2", "1E-3", "-0", "0.5", "1.0000000000000001", "9007199254740993"),
    );
    // Strings that look like numbers with fractions, exponents or many digits, alone or beside escapes.
    const string = fc.oneof(
      fc.string(),
      fc.constantFrom("2027-01-05T09:00:00.000Z", "1.5", "1e400", "12345678901234567", 'a"1.5', "\\", '\\"2.5'),
    );
    const body = fc.record({ a: number, s: string, list: fc.array(number, { maxLength: 3 }) });
    fc.assert(
      fc.property(body, (b) => {
        const text = `{"a":${b.a},"s":${JSON.stringify(b.s)},"list":[${b.list.join(",")}]}`;
        const plain = JSON.stringify(parseJsonExactly(text), (_k, v: unknown) =>
          v instanceof InexactNumber ? `inexact: ${v.message}` : v,
        );
        const revived = JSON.stringify(withReviverOnly(text), (_k, v: unknown) =>
          v instanceof InexactNumber ? `inexact: ${v.message}` : v,
        );
        expect(plain).toBe(revived);
      }),
      { numRuns: 2_000 },
    );
  });

  it("takes the plain parse when only strings hold digits before a dot (a ship date), and the reviver for a number", () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(parseJsonExactly('{"petId":1,"quantity":2,"shipDate":"2027-01-05T09:00:00.000Z"}')).toEqual({
        petId: 1,
        quantity: 2,
        shipDate: "2027-01-05T09:00:00.000Z",
      });
      expect(parse.mock.calls.at(-1)).toHaveLength(1);
      const { n } = parseJsonExactly('{"s":"1.5","n":9007199254740993}') as { n: unknown };
      expect(n).toBeInstanceOf(InexactNumber);
      expect(parse.mock.calls.at(-1)).toHaveLength(2);
    } finally {
      parse.mockRestore();
    }
  });
});
