// Types of the served copy of Preact (./preact.mjs), for the console's type check: the package's own.
export * from "preact";
