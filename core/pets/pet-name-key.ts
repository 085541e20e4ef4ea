/**
 * Both stores search and sort names by this key, so pages mean the same on either. A caseless form close to
 * Unicode full case folding: upper then lower case joins the forms `toLowerCase` keeps apart (ß and SS, ligatures),
 * and the final sigma, which lower-casing writes by its place in the word, is folded to σ.
 */
export const nameKeyOf = (name: string): string => name.toUpperCase().toLowerCase().replaceAll("ς", "σ");

/** Code point order, as MongoDB compares; JavaScript's `<` compares UTF-16 units. */
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
