// Types of the served copy of Preact's hooks (./hooks.mjs), for the console's type check: the package's own.
export * from "preact/hooks";
