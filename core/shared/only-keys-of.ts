/** `T`, typed so that each key `T` has beyond `Allowed` must be `never`: a spread that carries an extra field fails to compile. */
export type OnlyKeysOf<Allowed, T> = T & { [K in Exclude<keyof T, keyof Allowed>]: never };
