// Plain JavaScript on purpose: it must run (and explain) on the old Node that cannot load our TypeScript.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  process.stderr.write(
    `petstore needs Node 24 or newer, but Node ${process.versions.node} is running. ` +
      "Use the npm scripts (npm start, npm test): they run the Node 24 from the node@24 devDependency.\n",
  );
  process.exit(1);
}
