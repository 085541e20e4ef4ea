import { readFileSync } from "node:fs";

/** The version every part of a build reports: package.json's. */
export const packageVersion = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

/** The same version as Python's packaging spells it (PEP 440): `1.2.0-dev` is `1.2.0.dev0`. */
export const pep440 = (version: string): string => version.replace(/-dev$/, ".dev0");
