/**
 * Writes the OpenAPI documents as files, for `npm run lint:openapi` and `npm run generate:client`:
 *   node adapters/http/openapi/write-openapi.ts [directory]   (default node_modules/.cache/petstore-openapi)
 * → <directory>/openapi.json (public), <directory>/openapi-3.1.json (public, OpenAPI 3.1) and <directory>/admin-openapi.json
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { standaloneDocuments } from "./standalone.ts";

const directory = resolve(process.argv[2] ?? "node_modules/.cache/petstore-openapi");
mkdirSync(directory, { recursive: true });
const documents = standaloneDocuments();
writeFileSync(join(directory, "openapi.json"), `${JSON.stringify(documents.public, null, 2)}\n`);
writeFileSync(join(directory, "openapi-3.1.json"), `${JSON.stringify(documents.public31, null, 2)}\n`);
writeFileSync(join(directory, "admin-openapi.json"), `${JSON.stringify(documents.admin, null, 2)}\n`);
for (const name of ["openapi.json", "openapi-3.1.json", "admin-openapi.json"])
  process.stdout.write(`${join(directory, name)}\n`);
