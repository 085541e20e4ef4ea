/** The caseless key both stores search names by: docs/decisions/name-keys.md. */
export const nameKeyOf = (name: string): string =>
  name.replaceAll("ẞ", "ß").toUpperCase().toLowerCase().replaceAll("ς", "σ");

/** Code point order, as MongoDB compares. */
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

/** From a name key: digit runs after their length, so code point order compares numbers by value. */
export const nameOrderKeyOf = (nameKey: string): string =>
  nameKey.replace(/\d+/g, (run) => {
    const digits = run.replace(/^0+/, "");
    return `${String(digits.length).padStart(3, "0")}${digits}`;
  });
