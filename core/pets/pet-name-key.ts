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

/**
 * The name order's key, made from a name key (nameKeyOf): each run of ASCII digits, leading zeros dropped, is written
 * after its length in three digits, so plain code point order compares it by value ("hamster 2" → "hamster 0012",
 * before "hamster 00210"). Digit runs are at most 400 long (the longest cursor), so the length always fits.
 * Prefix search stays on the name key itself: this key's digits no longer start where the name's do.
 */
export const nameOrderKeyOf = (nameKey: string): string =>
  nameKey.replace(/\d+/g, (run) => {
    const digits = run.replace(/^0+/, "");
    return `${String(digits.length).padStart(3, "0")}${digits}`;
  });
