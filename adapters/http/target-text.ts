import type { ProblemDetail } from "./problem.ts";

const MESSAGE = "Malformed percent-encoding or invalid UTF-8 (percent-encode the UTF-8 bytes of each character)";

/** The text a percent-encoded part stands for; undefined when it is malformed or not UTF-8 (URIError). */
const decoded = (part: string): string | undefined => {
  try {
    return decodeURIComponent(part.replaceAll("+", " "));
  } catch {
    return undefined;
  }
};

/** A name for a parameter whose own name is malformed: its text as sent, shortened. */
const asSent = (name: string): string => (name.length > 40 ? `${name.slice(0, 40)}…` : name);

/**
 * Refuses a request target whose percent-encoding is malformed (`%ZZ`) or does not decode to UTF-8 (`%FF`, the
 * overlong `%C0%AF`): the URL parser would take the first literally and turn the others into U+FFFD, silently
 * changing what was asked. Each problem is named by its parameter (`query.name`), or `path`.
 */
export const checkTargetText = (pathname: string, search: string, details: ProblemDetail[]): void => {
  if (pathname.includes("%") && decoded(pathname) === undefined) details.push({ path: "path", message: MESSAGE });
  if (!search.includes("%")) return;
  for (const pair of search.slice(1).split("&")) {
    if (!pair.includes("%")) continue;
    const equals = pair.indexOf("=");
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = decoded(rawName);
    if (name === undefined) details.push({ path: `query.${asSent(rawName)}`, message: `${MESSAGE} in a name` });
    else if (equals !== -1 && decoded(pair.slice(equals + 1)) === undefined)
      details.push({ path: `query.${name}`, message: MESSAGE });
  }
};
