/**
 * The two generated lines of every folder README under `src/`: `**May import:**`, rendered from
 * the allowed-imports matrix (layers.ts, `allowedImports`) with the packages the folder's files
 * import, and `**Imported by:**`, the folders whose files import it. `npm run layout`
 * (scripts/layout.mjs) rewrites them; test/arch/module-docs.test.ts fails when one is stale.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { allowedImports } from "./layers.js";

export const MAY_IMPORT = "**May import:**";
export const IMPORTED_BY = "**Imported by:**";

const IMPORT_RE =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

/** "`a`, `b` and `c`". */
function list(names: readonly string[]): string {
  const q = names.map((n) => `\`${n}\``);
  return q.length <= 1 ? q.join("") : `${q.slice(0, -1).join(", ")} and ${q[q.length - 1]}`;
}

/** Every folder under src/ (relative, "/" separators), sorted. */
function folders(src: string, dir: string = src): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(relative(src, p).split(sep).join("/"), ...folders(src, p));
  }
  return out.sort();
}

/** Import specifiers of the .ts files directly in dir, with the importing file. */
function importsIn(dir: string): { file: string; spec: string }[] {
  const out: { file: string; spec: string }[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (!e.endsWith(".ts") || !statSync(p).isFile()) continue;
    // comments (a TSDoc example's import) are not imports
    const code = readFileSync(p, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    for (const m of code.matchAll(IMPORT_RE)) out.push({ file: p, spec: (m[1] ?? m[2] ?? m[3])! });
  }
  return out;
}

/** The two lines of each folder's README (keys: folders relative to src/). */
export function renderFolderLines(root: string): Map<string, { mayImport: string; importedBy: string }> {
  const src = join(root, "src");
  const all = folders(src);
  const importers = new Map<string, Set<string>>(all.map((f) => [f, new Set<string>()]));
  const packages = new Map<string, Set<string>>(all.map((f) => [f, new Set<string>()]));
  for (const from of [".", ...all]) {
    for (const { file, spec } of importsIn(join(src, from))) {
      if (!spec.startsWith(".")) {
        if (from !== ".") packages.get(from)!.add(spec);
        continue;
      }
      const target = relative(src, dirname(resolve(dirname(file), spec)))
        .split(sep)
        .join("/");
      if (target !== from && importers.has(target)) importers.get(target)!.add(from);
    }
  }
  const out = new Map<string, { mayImport: string; importedBy: string }>();
  for (const f of all) {
    const { folders: may, rootFiles } = allowedImports(f);
    const items = [...may.map((m) => `\`${m}\``), ...(rootFiles.length > 0 ? [`the root's ${list(rootFiles)}`] : [])];
    let line =
      items.length === 0
        ? "nothing of the package"
        : items.length === 1
          ? items[0]!
          : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
    line += " (test/arch/layers.ts)";
    const pkgs = [...packages.get(f)!].sort();
    if (pkgs.length > 0) line += `; packages: ${pkgs.map((p) => `\`${p}\``).join(", ")}`;
    const by = [...importers.get(f)!];
    const parts = [
      ...(by.includes(".") ? ["the package entry points (`src/*.ts`)"] : []),
      ...by
        .filter((b) => b !== ".")
        .sort()
        .map((b) => `\`${b}\``),
    ];
    out.set(f, {
      mayImport: `${MAY_IMPORT} ${line}.`,
      importedBy: `${IMPORTED_BY} ${parts.length > 0 ? parts.join(", ") : "nothing (an entry point)"}.`,
    });
  }
  return out;
}

/** A README's text with its two lines replaced (a README lacking a line is returned as it is there). */
export function withFolderLines(text: string, lines: { mayImport: string; importedBy: string }): string {
  return text
    .split("\n")
    .map((l) => (l.startsWith(MAY_IMPORT) ? lines.mayImport : l.startsWith(IMPORTED_BY) ? lines.importedBy : l))
    .join("\n");
}

/** The folder READMEs whose generated lines differ from the rendered ones, with their rendered text. */
export function staleFolderReadmes(root: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const [f, lines] of renderFolderLines(root)) {
    const path = join(root, "src", f, "README.md");
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue; // a missing README is module-docs.test.ts's finding
    }
    const next = withFolderLines(text, lines);
    if (next !== text) out.push({ path: `src/${f}/README.md`, text: next });
  }
  return out;
}
