/**
 * Complete mappers between records and documents: a field a record gains and a mapper leaves out is a compile error,
 * never a field the store drops without a word.
 */

/** Every field of `T` written out, each possibly undefined: what a document → record mapper satisfies. */
export type EveryField<T> = { [K in keyof Required<T>]: T[K] };

/**
 * Takes what a record → document mapper's destructuring left over, which must be nothing: each field of the record
 * is named in the destructuring, so a new one lands here and fails to compile.
 */
export const allMapped = (_unmapped: Record<string, never>): void => undefined;

/** The document without its undefined fields (the driver would store them as null). */
export const definedFields = <T extends object>(doc: T): T =>
  Object.fromEntries(Object.entries(doc).filter(([, value]) => value !== undefined)) as T;
