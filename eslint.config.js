// @ts-check
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "coverage/", ".ci/work/", "**/*.d.ts", "clients/typescript/dist/", "clients/typescript/src/generated/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      eqeqeq: ["error", "always"],
      "no-console": "error",
    },
  },
  {
    // Tests talk to loosely typed JSON bodies.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "no-console": "off" },
  },
  {
    files: ["clients/typescript/test/**/*.ts"],
    rules: { "no-console": "off" },
  },
  {
    // The client runs in browsers too: fetch and Web Crypto, nothing of Node's.
    files: ["clients/typescript/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^node:", message: "The client package uses no Node built-ins." }] }],
      "no-restricted-globals": ["error", "process", "Buffer", "require", "__dirname", "setImmediate"],
    },
  },
  {
    files: ["core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(?!\\.)", message: "core/ imports nothing outside core/ (no packages, no node: modules)." }] },
      ],
    },
  },
);
