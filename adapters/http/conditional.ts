import { HttpProblem } from "./problem.ts";
import type { Versioned } from "./route.ts";

/**
 * Strong entity tags of single resources: the kind's letter, the id and the revision the store checks on every
 * write (`"p7r3"`: pet 7, revision 3). Equal tags mean the same revision, hence the same representation.
 */
export const entityTag = (letter: string, id: number, revision: number): string => `"${letter}${id}r${revision}"`;

const listOf = (header: string): string[] =>
  header
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);

/** If-None-Match (weak comparison, RFC 9110 §13.1.2): does the client already have this representation? */
export const matchesNoneMatch = (header: string | null, etag: string): boolean => {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => (tag.startsWith("W/") ? tag.slice(2) : tag);
  return listOf(header).some((tag) => opaque(tag) === etag);
};

const stale = () =>
  new HttpProblem("precondition_failed", "The resource has changed since you read it (If-Match); read it again");

/**
 * If-Match (strong comparison): the revision the client read, for the store to check in the same write.
 * Undefined when there is no condition (no header, or `*`). A tag of another resource, a weak or unknown tag:
 * 412 at once, as it can never match.
 */
export const expectedRevisionOf = (header: string | null, versioned: Versioned, id: number): number | undefined => {
  if (header === null || header.trim() === "*") return undefined;
  const pattern = new RegExp(`^"${versioned.letter}${id}r(\\d{1,15})"$`);
  const revisions = listOf(header).flatMap((tag) => {
    const match = pattern.exec(tag);
    return match ? [Number(match[1])] : [];
  });
  if (revisions.length === 0) throw stale();
  if (revisions.length > 1) {
    throw new HttpProblem("validation_failed", "If-Match takes one entity tag (or *)", {
      details: [{ path: "header.If-Match", message: "Expected one entity tag, as answered in ETag" }],
    });
  }
  return revisions[0];
};
