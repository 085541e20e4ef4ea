// @ts-check
import tseslint from "typescript-eslint";

/** Imports first: a reader sees a file's dependencies in one place. */
const importsFirst = {
  meta: { type: "suggestion", messages: { late: "Imports go at the top of the file, before any other statement." } },
  create: (context) => ({
    Program(program) {
      let seenOther = false;
      for (const statement of program.body) {
        if (statement.type !== "ImportDeclaration") seenOther = true;
        else if (seenOther) context.report({ node: statement, messageId: "late" });
      }
    },
  }),
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "coverage/",
      ".ci/work/",
      "**/*.d.ts",
      "clients/typescript/dist/",
      "clients/typescript/src/generated/",
    ],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { local: { rules: { "imports-first": importsFirst } } },
    rules: {
      "local/imports-first": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
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
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^node:", message: "The client package uses no Node built-ins." }] },
      ],
      "no-restricted-globals": ["error", "process", "Buffer", "require", "__dirname", "setImmediate"],
    },
  },
  {
    files: ["core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^(?!\\.)", message: "core/ imports nothing outside core/ (no packages, no node: modules)." },
          ],
        },
      ],
    },
  },
);
