/**
 * What name search and the name order go by: the name lower-cased. Both stores keep or compute this same key, so a
 * prefix search and a page boundary mean the same thing on either.
 */
export const nameKeyOf = (name: string): string => name.toLowerCase();

/**
 * Code point order, as MongoDB compares strings (by their UTF-8 bytes); JavaScript's `<` compares UTF-16 units,
 * which puts characters beyond U+FFFF before U+E000–U+FFFF.
 */
export const compareNameKeys = (a: string, b: string): number => {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const l = left.next();
    const r = right.next();
    if (l.done || r.done) return l.done && r.done ? 0 : l.done ? -1 : 1;
    if (l.value !== r.value) return (l.value.codePointAt(0) as number) - (r.value.codePointAt(0) as number);
  }
};
