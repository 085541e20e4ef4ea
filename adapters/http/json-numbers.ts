/**
 * JSON numbers arrive as doubles: beyond ±(2^53-1), or with more digits than a double holds, the value the
 * service would see is not the one sent. JSON.parse's reviver sees each number's source text (Node 24), so such
 * numbers are found and refused instead of rounded.
 */

const decimal = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Why `value`, parsed from `source`, is not exactly what was sent; undefined when it is. */
export const inexactness = (value: number, source: string): string | undefined => {
  // Fractions are left to the schemas (no field takes one).
  if (Number.isFinite(value) && !Number.isInteger(value)) return undefined;
  if (!Number.isSafeInteger(value)) {
    return `${source} cannot be represented exactly: integers must lie between -(2^53-1) and 2^53-1`;
  }
  const match = decimal.exec(source);
  if (!match) return undefined;
  const [, whole = "", fraction = "", exponent = "0"] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, "");
  if (digits === "") return undefined; // a zero, however written
  let scale = Number(exponent) - fraction.length;
  while (digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    scale += 1;
  }
  const exact = scale >= 0 && scale <= 16 && BigInt(digits) * 10n ** BigInt(scale) === BigInt(Math.abs(value));
  return exact ? undefined : `${source} is not an integer, or not exactly one (it would be read as ${value})`;
};

/**
 * What stands in a parsed body for a number that was not parsed exactly: no schema accepts it, and the schema's
 * issue at that path carries `message` (see `exactNumberMessages`), so the field is named like any other problem.
 */
export class InexactNumber {
  readonly #message: string;
  constructor(message: string) {
    this.#message = message;
    Object.freeze(this);
  }
  get message(): string {
    return this.#message;
  }
}

/**
 * Only a number with 16 digits or more in a row, or with a fraction or an exponent, can be inexact: a text without
 * one (a digit followed by `.`, `e` or `E`, or 16 digits) holds integers of at most 15 digits, all exact, and
 * JSON.parse alone reads it the same, at a fraction of the reviver's cost.
 */
const mayHoldInexactNumber = /\d(?:[.eE]|\d{15})/;
/**
 * A JSON string, escapes and all. Numbers stand only outside strings, so a text that matches the test above only
 * inside its strings (a date-time such as `"2027-01-05T09:00:00.000Z"`) needs no reviver either. Where the text is
 * not JSON the strings may be found wrongly, but JSON.parse refuses it with or without a reviver.
 */
const jsonString = /"(?:[^"\\]|\\.)*"/g;

/** Parses JSON like JSON.parse, with an InexactNumber in place of every number a double would not hold exactly. */
export const parseJsonExactly = (text: string): unknown => {
  if (!mayHoldInexactNumber.test(text) || !mayHoldInexactNumber.test(text.replace(jsonString, '""')))
    return JSON.parse(text) as unknown;
  try {
    return JSON.parse(text, (_key, parsed: unknown, context?: { source?: string }) => {
      if (typeof parsed !== "number" || context?.source === undefined) return parsed;
      const message = inexactness(parsed, context.source);
      return message === undefined ? parsed : new InexactNumber(message);
    });
  } catch (error) {
    // The reviver walks recursively and runs out of stack some thousands of levels deep, where JSON.parse alone
    // does not. No schema takes anything nested more than three levels, so such a body is refused all the same.
    if (error instanceof RangeError) return JSON.parse(text) as unknown;
    throw error;
  }
};

/** For zod's configuration: the message of an issue raised by an InexactNumber, so details say what was wrong. */
export const exactNumberMessages = (issue: { input?: unknown }): string | undefined =>
  issue.input instanceof InexactNumber ? issue.input.message : undefined;
