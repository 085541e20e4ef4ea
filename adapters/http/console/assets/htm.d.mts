// Types of the served copy of htm (./htm.mjs), for the console's type check: the package's own.
export { default } from "htm";
