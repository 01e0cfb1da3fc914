import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { IMPORTED_BY, MAY_IMPORT, renderFolderLines, staleFolderReadmes, withFolderLines } from "./folder-readmes.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const src = join(root, "src");

/** Every folder under src/, as a path relative to src/ with "/" separators. */
function folders(dir: string = src): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (!statSync(p).isDirectory()) continue;
    out.push(relative(src, p).split(sep).join("/"), ...folders(p));
  }
  return out;
}

/** Folders (relative to src/, "." for src/ itself) that the .ts files directly in `folder` import, other than `folder`. */
function importedFolders(folder: string): Set<string> {
  const dir = join(src, folder);
  const out = new Set<string>();
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const e of readdirSync(dir)) {
    if (!e.endsWith(".ts") || !statSync(join(dir, e)).isFile()) continue;
    for (const m of readFileSync(join(dir, e), "utf8").matchAll(re)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (!spec.startsWith(".")) continue;
      let target =
        relative(src, dirname(resolve(dir, spec)))
          .split(sep)
          .join("/") || ".";
      // Another top folder is named as a whole (it is reached through its entry); within one top
      // folder, the sub-folder itself.
      const top = (f: string): string => f.split("/")[0]!;
      if (target !== "." && top(target) !== top(folder)) target = top(target);
      if (target !== folder) out.add(target);
    }
  }
  return out;
}

const LABELS = ["**Job.**", "**Public contract.**", "**May import:**", "**Imported by:**"];

test("every folder of src/ opens with a README.md giving its job, public contract, allowed imports and importers", () => {
  const all = folders();
  assert.ok(all.length > 20, "folders were found");
  const missing: string[] = [];
  for (const folder of all) {
    const readme = join(src, folder, "README.md");
    if (!existsSync(readme)) {
      missing.push(`src/${folder}: no README.md`);
      continue;
    }
    const text = readFileSync(readme, "utf8");
    if (!text.startsWith(`# src/${folder} `)) missing.push(`src/${folder}/README.md: the title names another folder`);
    for (const label of LABELS) if (!text.includes(label)) missing.push(`src/${folder}/README.md: no ${label}`);
  }
  assert.deepEqual(missing, []);
});

test("each folder imports only the folders its README allows (the root's errors.ts and catalogue always)", () => {
  const all = new Set(folders());
  const violations: string[] = [];
  for (const folder of all) {
    const text = readFileSync(join(src, folder, "README.md"), "utf8");
    const line = text.split("\n").find((l) => l.startsWith("**May import:**")) ?? "";
    const allowed = new Set([...line.matchAll(/`([\w/-]+)`/g)].map((m) => m[1]!).filter((t) => all.has(t)));
    for (const target of importedFolders(folder)) {
      if (target === "." || allowed.has(target)) continue;
      violations.push(`src/${folder} imports src/${target}, which its README does not allow`);
    }
  }
  assert.deepEqual(violations, []);
});

test("every folder README's May import and Imported by lines are the rendered ones (the matrix of test/arch/layers.ts; `npm run layout` rewrites them)", () => {
  const rendered = renderFolderLines(root);
  assert.deepEqual([...rendered.keys()].sort(), folders().sort(), "a line pair for every folder");
  assert.deepEqual(
    staleFolderReadmes(root).map((f) => f.path),
    [],
    "stale README lines: run `npm run layout`",
  );
  // the May import line names what the matrix allows: a hash folder may import the field, a field folder not the hash
  assert.match(
    rendered.get("hash")!.mayImport,
    /^\*\*May import:\*\* `field` and the root's `errors.ts` \(test\/arch\/layers.ts\)\./,
  );
  assert.match(
    rendered.get("field")!.mayImport,
    /^\*\*May import:\*\* the root's `errors.ts` \(test\/arch\/layers.ts\)\.$/,
  );
  assert.match(rendered.get("registry/store")!.mayImport, /`registry`, `registry\/hashing`.*packages: .*`lmdb`/);
  assert.doesNotMatch(rendered.get("registry/store")!.mayImport, /`registry\/import`/);
  // a hand-edited line is found, and rewriting restores it
  const text = readFileSync(join(src, "hash", "README.md"), "utf8");
  const edited = text.replace(/^\*\*May import:\*\*.*$/m, `${MAY_IMPORT} \`field\`, \`kernels\`.`);
  assert.notEqual(edited, text);
  assert.equal(withFolderLines(edited, rendered.get("hash")!), text);
  assert.ok(
    text.includes(rendered.get("hash")!.importedBy) && rendered.get("hash")!.importedBy.startsWith(IMPORTED_BY),
  );
});
