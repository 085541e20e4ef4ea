import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as esbuildModule from "esbuild";

type Esbuild = typeof esbuildModule;

const here = dirname(fileURLToPath(import.meta.url));
const sources = join(here, "assets");
/** Where `build-console.ts` leaves a bundle for an installation without esbuild (the service image). */
export const BUNDLE_FOLDER = join(here, "dist");

/** The console's code and styles, each one file: what a first visit loads besides the page. */
export interface ConsoleBundle {
  js: string;
  css: string;
}

/** esbuild is a development dependency: present wherever `npm ci` ran, absent from the image. */
const esbuild = (): Esbuild | undefined => {
  try {
    return createRequire(import.meta.url)("esbuild") as Esbuild;
  } catch {
    return undefined;
  }
};

/** Bundles the modules (Preact and htm included) and the stylesheet, minified, in memory: well under a second. */
export const buildConsoleBundle = (build: Esbuild): ConsoleBundle => {
  const result = build.buildSync({
    entryPoints: [join(sources, "console.js"), join(sources, "console.css")],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    outdir: "out",
    write: false,
    logLevel: "silent",
  });
  const text = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? "";
  return { js: text(".js"), css: text(".css") };
};

/** Built from the sources where esbuild is installed, so a change shows on the next start; else the prebuilt files. */
export const consoleBundle = (): ConsoleBundle => {
  const build = esbuild();
  if (build) return buildConsoleBundle(build);
  const js = join(BUNDLE_FOLDER, "console.js");
  const css = join(BUNDLE_FOLDER, "console.css");
  if (!existsSync(js) || !existsSync(css)) {
    throw new Error(
      `The console is not built: run \`node adapters/http/console/build-console.ts\` where esbuild is installed`,
    );
  }
  return { js: readFileSync(js, "utf8"), css: readFileSync(css, "utf8") };
};

/** Writes the bundle to BUNDLE_FOLDER (the image's build stage runs this). */
export const writeConsoleBundle = (): void => {
  const build = esbuild();
  if (!build) throw new Error("esbuild is not installed");
  const bundle = buildConsoleBundle(build);
  mkdirSync(BUNDLE_FOLDER, { recursive: true });
  writeFileSync(join(BUNDLE_FOLDER, "console.js"), bundle.js);
  writeFileSync(join(BUNDLE_FOLDER, "console.css"), bundle.css);
};
