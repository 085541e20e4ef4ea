// Bundles the console into adapters/http/console/dist/ for an installation without esbuild (the service image).
import { BUNDLE_FOLDER, writeConsoleBundle } from "./console-bundle.ts";

writeConsoleBundle();
process.stdout.write(`console bundled into ${BUNDLE_FOLDER}\n`);
