import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** The documentation whose links are checked: README.md and every Markdown file under docs/. */
export const documentationFiles = (root: string): string[] => {
  const docs = existsSync(join(root, "docs"))
    ? readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    : [];
  return ["README.md", ...docs.filter((file) => file.endsWith(".md")).map((file) => join("docs", file))].sort();
};

/** Lines outside fenced code blocks: a `#` or a `[x](y)` inside a shell example is neither a heading nor a link. */
const proseLines = (text: string): string[] => {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
};

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen (so " + " gives "--"). */
export const headingSlug = (heading: string): string =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");

/** The anchors a Markdown file offers, a repeated heading getting -1, -2, … as on GitHub. */
export const anchorsOf = (text: string): Set<string> => {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  return anchors;
};

/**
 * Every relative link of the given files (relative to root) whose file or anchor does not exist, as
 * "file: target (why)". Links with a scheme, and links that leave the repository (../shared/PRODUCT.md, which a
 * fresh clone does not have), are not checked.
 */
export const brokenLinks = (root: string, files: string[]): string[] => {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const prose = proseLines(text)
      .join("\n")
      .replace(/`[^`\n]*`/g, (code) => (code.includes("](") ? "" : code));
    for (const match of prose.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = "", anchor] = target.split("#", 2);
      const resolved = path === "" ? join(root, file) : resolve(root, dirname(file), decodeURIComponent(path));
      const inside = relative(root, resolved);
      if (inside.startsWith(`..${sep}`) || inside === "..") continue;
      if (!existsSync(resolved)) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) {
        broken.push(`${file}: ${target} (an anchor into something that is not a Markdown file)`);
      } else if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) {
        broken.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  return broken;
};

/** Folders never walked: dependencies, and CI's scratch space (root filesystems of the images it builds). */
const NOT_SOURCE = new Set(["node_modules", "work", ".git"]);

/** Source files (relative to root) under a folder whose comments may name a document; generated types excluded. */
const sourceFiles = (root: string, folder: string): string[] => {
  if (!existsSync(join(root, folder))) return [];
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return NOT_SOURCE.has(entry.name) ? [] : sourceFiles(root, path);
    return /\.(ts|js|cjs|mjs|sh|go)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
};

/**
 * Every `docs/…` path (with its `#anchor`, if any) named in the source files of the given folders that does not
 * exist, as "file:line: reference". A URL path such as `/docs/assets/…` is not a document.
 */
export const brokenDocumentReferences = (root: string, folders: string[], skip: string[] = []): string[] => {
  const broken: string[] = [];
  for (const file of folders.flatMap((folder) => sourceFiles(root, folder)).filter((file) => !skip.includes(file))) {
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .forEach((line, index) => {
        for (const match of line.matchAll(/(?<![\w/.-])(docs\/[\w./-]*\w)(?:#([\w-]+))?/g)) {
          const [reference, path, anchor] = [match[0], match[1]!, match[2]];
          const target = join(root, path);
          const fine =
            existsSync(target) && (anchor === undefined || anchorsOf(readFileSync(target, "utf8")).has(anchor));
          if (!fine) broken.push(`${file}:${index + 1}: ${reference}`);
        }
      });
  }
  return broken;
};
