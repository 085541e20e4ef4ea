#!/usr/bin/env node
// Share of comment characters in TypeScript sources: node scripts/comment-share.mjs [dir or file …] (default: core).
// Each file is parsed by TypeScript, and every comment range next to a token is counted once, so text inside
// strings, templates and regular expressions is never taken for a comment. Share = characters of // and /* */
// comments (markers included) over all characters of the *.ts files under the directories (whitespace included).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const filesUnder = (dir) =>
  statSync(dir).isFile()
    ? [dir]
    : readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
        .map((entry) => join(entry.parentPath, entry.name))
        .sort();

const commentCharacters = (path, text) => {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const ranges = new Map();
  const note = (list) => list?.forEach((range) => ranges.set(range.pos, range.end - range.pos));
  const visit = (node) => {
    const children = node.getChildren(source);
    if (children.length === 0) {
      note(ts.getLeadingCommentRanges(text, node.pos));
      note(ts.getTrailingCommentRanges(text, node.end));
    }
    children.forEach(visit);
  };
  visit(source);
  note(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return [...ranges.values()].reduce((sum, length) => sum + length, 0);
};

const dirs = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["core"];
let comments = 0;
let total = 0;
const rows = [];
for (const path of dirs.flatMap(filesUnder)) {
  const text = readFileSync(path, "utf8");
  const inFile = commentCharacters(path, text);
  comments += inFile;
  total += text.length;
  rows.push({ path, share: inFile / text.length, comments: inFile, total: text.length });
}
if (process.env.VERBOSE)
  for (const r of rows.sort((a, b) => b.comments - a.comments))
    process.stdout.write(
      `${(100 * r.share).toFixed(1).padStart(5)}% ${String(r.comments).padStart(6)} ${r.path}` + "\n",
    );
process.stdout.write(
  `${dirs.join(" ")}: ${comments} of ${total} characters in comments, ${((100 * comments) / total).toFixed(1)}%` + "\n",
);
