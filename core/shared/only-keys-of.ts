/** Keys beyond `Allowed` must be `never`, so a spread carrying an extra field fails to compile. */
export type OnlyKeysOf<Allowed, T> = T & { [K in Exclude<keyof T, keyof Allowed>]: never };
