/**
 * The hexagon, enforced: dependencies point inward only.
 *   core/      → nothing outside core/ (no packages, not even node: built-ins)
 *   adapters/  → core/ and packages, never bootstrap/ or test/
 *   bootstrap/ → adapters/, core/ and packages, never test/
 */
module.exports = {
  forbidden: [
    {
      name: "core-is-self-contained",
      comment: "core/ is the framework-free domain: it imports only from core/.",
      severity: "error",
      from: { path: "^core/" },
      to: { pathNot: "^core/" },
    },
    {
      name: "adapters-do-not-know-bootstrap",
      severity: "error",
      from: { path: "^adapters/" },
      to: { path: "^(bootstrap|test)/" },
    },
    {
      name: "bootstrap-does-not-know-tests",
      severity: "error",
      from: { path: "^bootstrap/" },
      to: { path: "^test/" },
    },
    {
      name: "no-unresolvable-imports",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // The console's browser modules import each other by the URLs the service serves them under, not by file.
    exclude: { path: "^adapters/http/console/assets/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
