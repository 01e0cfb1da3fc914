import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { LAYOUT_BEGIN, LAYOUT_END, OPEN_SUBFOLDERS, PENDING, SUBFOLDERS, UNITS, renderLayout } from "./layers.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const CORE = ["field", "hash", "transcript", "sumcheck", "gkr"];
const FRONTEND = ["smt", "sync", "codec", "serve", "cli", "counterparty", "http", "web"];

function tsFiles(dir: string): string[] {
  let out: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out = out.concat(tsFiles(p));
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** Module specifiers of static imports, re-exports and dynamic imports. */
function importsOf(text: string): string[] {
  const specs: string[] = [];
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

test("the core (field → gkr) never imports the SMT frontend, sync, codec, serving or CLI", () => {
  const violations: string[] = [];
  let checked = 0;
  for (const mod of CORE) {
    for (const file of tsFiles(join(root, "src", mod))) {
      checked++;
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (!spec.startsWith(".")) continue;
        const target = relative(join(root, "src"), resolve(dirname(file), spec));
        const top = target.split(sep)[0]!;
        if (FRONTEND.includes(top)) violations.push(`${relative(root, file)} imports ${spec}`);
      }
    }
  }
  assert.ok(checked > 5, "core source files were found");
  assert.deepEqual(violations, []);
});

test("the import scanner recognises every import form", () => {
  const specs = importsOf(
    `import { a } from "../smt/x.js";\nexport * from '../sync/y.js';\nconst m = await import("../cli/z.js");\nimport "../serve/w.js";`,
  );
  assert.deepEqual(specs.sort(), ["../cli/z.js", "../serve/w.js", "../smt/x.js", "../sync/y.js"]);
});

test("the import scanner sees type-only imports and re-exports, over several lines", () => {
  const specs = importsOf(
    `import type { A } from "../statement/types.js";\nexport type { B } from "../smt/config.js";\nimport {\n  type C,\n  d,\n} from "../gkr/index.js";`,
  );
  assert.deepEqual(specs.sort(), ["../gkr/index.js", "../smt/config.js", "../statement/types.js"]);
});

/** Relative imports of the files under src/<folder> (resolved to paths under src/), with their package imports. */
function importsUnder(folder: string): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = [];
  for (const file of tsFiles(join(root, "src", folder))) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = spec.startsWith(".")
        ? relative(join(root, "src"), resolve(dirname(file), spec))
            .split(sep)
            .join("/")
        : spec;
      out.push({ file: relative(root, file), target });
    }
  }
  return out;
}

test("the browser page and the counterparty check import nothing Node-only (no store, server, CLI, lmdb, fastify, workers)", () => {
  const browserSide = [
    ...importsUnder("web"),
    ...importsUnder("counterparty").filter((i) => !i.file.endsWith("prove.ts")),
  ];
  assert.ok(browserSide.length > 5, "browser-side imports were found");
  const bad = browserSide.filter(
    ({ target }) =>
      /^(http|cli|serve)\//.test(target) ||
      target.startsWith("registry/store") ||
      target.startsWith("registry/import") ||
      target.startsWith("sync/parallel") ||
      ["lmdb", "fastify", "node:worker_threads", "node:os", "node:crypto", "node:path"].includes(target) ||
      target.startsWith("@fastify/"),
  );
  assert.deepEqual(
    bad.map((b) => `${b.file} imports ${b.target}`),
    [],
  );
});

test("the HTTP API reaches the registry only through the name-statement adapter, the store, the checkpoint signer, the block prover, the write sequencer and the registry's error codes (their HTTP statuses); nothing but the CLI imports it", () => {
  const http = importsUnder("http").filter(
    ({ target }) =>
      /^registry\//.test(target) &&
      !/^registry\/(store|mapping|checkpoint|consistency\/block-prover|sequencer\/sequencer|errors\.js$)/.test(target),
  );
  assert.deepEqual(
    http.map((b) => `${b.file} imports ${b.target}`),
    [],
  );
  const users: string[] = [];
  for (const folder of readdirSync(join(root, "src"))) {
    if (folder === "http" || folder === "cli" || !statSync(join(root, "src", folder)).isDirectory()) continue;
    for (const i of importsUnder(folder)) if (i.target.startsWith("http/")) users.push(`${i.file} imports ${i.target}`);
  }
  assert.deepEqual(users, []);
});

/** Profile v2 and v3 code: its own folders, and the structured family and zero-knowledge GKR of the core (src/gkr/structured/, structured-* files, src/gkr/zk/). */
const V2_FOLDERS = ["smt/v2", "codec/v2", "sync/v2", "smt/v3", "codec/v3", "sync/v3"];
function isV2(target: string): boolean {
  const t = target.split(sep).join("/");
  return (
    V2_FOLDERS.some((f) => t === f || t.startsWith(`${f}/`)) ||
    /^gkr\/(structured|zk)(-[^/]+|\/.+)$/.test(t.replace(/\.(js|ts)$/, ""))
  );
}

/** Folders whose code defines compat-v1 (the CLI, serving and the registry may offer both profiles). */
const COMPAT_V1 = ["field", "hash", "transcript", "sumcheck", "gkr", "smt", "sync", "codec", "kernels"];

test("compat-v1 code never imports profiles v2 and v3 (src/smt/v2, src/codec/v2, src/sync/v2, src/gkr/structured/, src/gkr/zk/, the v3 folders)", () => {
  const violations: string[] = [];
  let v2Files = 0;
  for (const file of tsFiles(join(root, "src"))) {
    const self = relative(join(root, "src"), file);
    if (isV2(self)) {
      v2Files++;
      continue;
    }
    if (!COMPAT_V1.includes(self.split(sep)[0]!)) continue;
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const target = relative(join(root, "src"), resolve(dirname(file), spec));
      if (isV2(target)) violations.push(`${relative(root, file)} imports ${spec}`);
    }
  }
  assert.ok(v2Files >= 4, "profile v2 files were found");
  assert.deepEqual(violations, []);
});

test("the profile v2 SMT frontend imports the core, the v1 SMT frontend and its own folder only (not serving, CLI or the registry)", () => {
  const violations: string[] = [];
  for (const file of tsFiles(join(root, "src", "smt", "v2"))) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const top = relative(join(root, "src"), resolve(dirname(file), spec)).split(sep)[0]!;
      if (["serve", "cli", "registry"].includes(top)) violations.push(`${relative(root, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(violations, []);
});

test("the worker-pool core (src/workers) imports nothing of the package, the catalogue (src/error-catalogue.ts) only errors.ts files, verifier code lists and the library's union, and that union (src/error-codes.ts) only types of errors.ts files and code lists", () => {
  const workers = importsUnder("workers").filter(({ target }) => !target.startsWith("node:"));
  assert.ok(tsFiles(join(root, "src", "workers")).length >= 1, "the core was found");
  assert.deepEqual(
    workers.map((b) => `${b.file} imports ${b.target}`),
    [],
  );
  const catalogue = importsOf(readFileSync(join(root, "src", "error-catalogue.ts"), "utf8")).map((s) =>
    relative(join(root, "src"), resolve(join(root, "src"), s))
      .split(sep)
      .join("/"),
  );
  assert.ok(catalogue.length > 20, "the catalogue's imports were found");
  const allowed =
    /(^|\/)errors\.js$|^(sync\/request|counterparty\/claim|demo\/errors|gkr\/verifier|sumcheck\/verifier|smt\/semantics|sync\/verdict|sync\/verify|sync\/v2\/verify|sync\/v3\/verdict|registry\/verify-record|registry\/verify-block|registry\/consistency\/verify-consistency|counterparty\/verify)\.js$/;
  assert.deepEqual(
    catalogue.filter((t) => !allowed.test(t) && t !== "error-codes.js"),
    [],
  );
  const unionText = readFileSync(join(root, "src", "error-codes.ts"), "utf8");
  const union = importsOf(unionText).map((s) =>
    relative(join(root, "src"), resolve(join(root, "src"), s))
      .split(sep)
      .join("/"),
  );
  assert.ok(union.length > 10, "the union's imports were found");
  assert.deepEqual(
    union.filter((t) => !allowed.test(t) || t.startsWith("cli/")),
    [],
  );
  assert.doesNotMatch(unionText, /^import (?!type )/m, "src/error-codes.ts imports types only");
});

/** Folders below the kernels: they get the kernel backend injected (src/hash/backend.ts), never import it. */
const BELOW_KERNELS = ["field", "hash", "transcript", "sumcheck", "pcs"];

test("the field, hash, transcript, sumcheck and pcs code never imports the kernels (the backend is injected by src/kernels/backend.ts)", () => {
  const violations: string[] = [];
  let checked = 0;
  for (const folder of BELOW_KERNELS) {
    for (const { file, target } of importsUnder(folder)) {
      checked++;
      if (target === "kernels" || target.startsWith("kernels/")) violations.push(`${file} imports ${target}`);
    }
  }
  assert.ok(checked > 10, "imports below the kernels were found");
  assert.deepEqual(violations, []);
});

test("the kernels import only the field and hash layers below them and the kernel seam of pcs (never gkr, sync, smt or anything above)", () => {
  // pcs/backend.js is the seam the WASM backend of the commitment is injected through and
  // pcs/domain.js its roots of unity; pcs itself never imports the kernels (the test above).
  const allowed = ["field/", "hash/", "kernels/", "pcs/backend.js", "pcs/domain.js"];
  const bad = importsUnder("kernels").filter(
    ({ file, target }) =>
      !file.includes(`kernels${sep}assembly${sep}`) &&
      !file.includes("kernels/assembly/") &&
      target.includes("/") &&
      !target.startsWith("node:") &&
      !allowed.some((a) => target.startsWith(a)),
  );
  assert.deepEqual(
    bad.map((b) => `${b.file} imports ${b.target}`),
    [],
  );
});

// ---- The allowed-imports matrix (test/arch/layers.ts) ----

/** Repository-relative path with forward slashes. */
const repoPath = (p: string): string => relative(root, p).split(sep).join("/");

/** The unit of a repository path: a file directly in src/, else its top folder under src/ or bench/ (bench/<dir> or bench). */
function unitOf(path: string): string | null {
  const parts = path.split("/");
  if (parts[0] === "src") return parts.length === 2 ? path : `src/${parts[1]}`;
  if (parts[0] === "bench") return parts.length === 2 ? "bench" : `bench/${parts[1]}`;
  if (parts[0] === "test") return "test";
  return null;
}

/** The sub-folder of `path` inside its unit ("" for the unit's own root files), as placed in SUBFOLDERS (longest match). */
function subfolderOf(unit: string, path: string): string | null {
  const rest = path
    .slice(unit.length + 1)
    .split("/")
    .slice(0, -1)
    .join("/");
  if (rest === "") return "";
  const placed = Object.keys(SUBFOLDERS[unit] ?? {})
    .filter((s) => rest === s || rest.startsWith(`${s}/`))
    .sort((a, b) => b.length - a.length);
  return placed[0] ?? null;
}

/** Every relative import of every TypeScript file under src/ and bench/, resolved to a repository path (.ts). */
function allImports(): { file: string; spec: string; target: string }[] {
  const out: { file: string; spec: string; target: string }[] = [];
  for (const top of ["src", "bench"]) {
    for (const file of tsFiles(join(root, top))) {
      if (file.includes(`${sep}kernels${sep}assembly${sep}`)) continue; // AssemblyScript, compiled on its own
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (!spec.startsWith(".")) continue;
        out.push({
          file: repoPath(file),
          spec,
          target: repoPath(resolve(dirname(file), spec)).replace(/\.js$/, ".ts"),
        });
      }
    }
  }
  return out;
}

/** Folders under src/ and bench/ that hold TypeScript. */
function codeFolders(): string[] {
  const dirs = new Set<string>();
  for (const top of ["src", "bench"]) for (const f of tsFiles(join(root, top))) dirs.add(repoPath(dirname(f)));
  return [...dirs].sort();
}

function assertAcyclic(graph: Readonly<Record<string, readonly string[]>>, what: string): void {
  const state = new Map<string, "open" | "done">();
  const visit = (n: string, path: string[]): void => {
    if (state.get(n) === "done") return;
    if (state.get(n) === "open") assert.fail(`${what} has a cycle: ${[...path.slice(path.indexOf(n)), n].join(" → ")}`);
    state.set(n, "open");
    for (const m of graph[n] ?? []) visit(m, [...path, n]);
    state.set(n, "done");
  };
  for (const n of Object.keys(graph)) visit(n, []);
}

test("every folder of src/ and bench/ and every file directly in src/ is placed in the allowed-imports matrix", () => {
  const missing: string[] = [];
  for (const dir of codeFolders()) {
    if (dir === "src") continue;
    const parts = dir.split("/");
    const unit = parts[0] === "src" ? `src/${parts[1]}` : parts.length === 1 ? "bench" : `bench/${parts[1]}`;
    if (!(unit in UNITS)) {
      missing.push(`${dir}/ (no unit ${unit} in UNITS)`);
      continue;
    }
    const rest = dir.slice(unit.length + 1);
    if (rest && !(rest in (SUBFOLDERS[unit] ?? {}))) missing.push(`${dir}/ (not in SUBFOLDERS["${unit}"])`);
  }
  for (const f of readdirSync(join(root, "src"))) {
    if (f.endsWith(".ts") && !(`src/${f}` in UNITS)) missing.push(`src/${f}`);
  }
  assert.deepEqual(
    missing,
    [],
    "place each folder in test/arch/layers.ts (UNITS or SUBFOLDERS), with the folders it may import",
  );
  const placed = [
    ...Object.keys(UNITS),
    ...Object.entries(SUBFOLDERS).flatMap(([u, subs]) => Object.keys(subs).map((s) => `${u}/${s}`)),
  ];
  const stale = placed.filter((p) =>
    p.endsWith(".ts")
      ? !statSync(join(root, p), { throwIfNoEntry: false })
      : !codeFolders().some((d) => d === p || d.startsWith(`${p}/`)),
  );
  assert.deepEqual(stale, [], "units and sub-folders of the matrix that no longer exist");
});

test("the open sub-folders are placed in the matrix", () => {
  for (const o of OPEN_SUBFOLDERS) {
    const unit = unitOf(`${o}/x.ts`)!;
    assert.ok(o.slice(unit.length + 1) in (SUBFOLDERS[unit] ?? {}), `${o} is in SUBFOLDERS`);
  }
});

test("the allowed-imports matrix has no cycles, at the top level and among each folder's sub-folders", () => {
  for (const [u, unit] of Object.entries(UNITS)) {
    for (const i of unit.imports) assert.ok(i in UNITS || i === "test", `${u} may import ${i}, which is not a unit`);
  }
  assertAcyclic(Object.fromEntries(Object.entries(UNITS).map(([u, unit]) => [u, unit.imports])), "the folder matrix");
  for (const [u, subs] of Object.entries(SUBFOLDERS)) {
    for (const [s, may] of Object.entries(subs))
      for (const m of may) assert.ok(m in subs, `${u}/${s} may import ${u}/${m}, which is not placed`);
    assertAcyclic(subs, `the sub-folders of ${u}`);
  }
  assert.throws(() => assertAcyclic({ a: ["b"], b: ["a"] }, "x"), /cycle: a → b → a/);
});

test("every import of src/ and bench/ (static, type-only, re-export, dynamic) follows the matrix", () => {
  const imports = allImports();
  assert.ok(imports.length > 1000, `imports were found (${imports.length})`);
  const violations: string[] = [];
  for (const { file, spec, target } of imports) {
    const from = unitOf(file)!,
      to = unitOf(target);
    if (to === null) {
      violations.push(`${file} imports ${spec}, outside src/, bench/ and test/`);
      continue;
    }
    if (from === to) {
      if (!(from in SUBFOLDERS)) continue;
      const a = subfolderOf(from, file),
        b = subfolderOf(from, target);
      if (a === null || b === null || a === "" || b === "" || a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`))
        continue;
      if (!SUBFOLDERS[from]![a]!.includes(b))
        violations.push(`${file} imports ${spec}: ${from}/${a} may not import ${from}/${b}`);
      continue;
    }
    if (UNITS[from]?.imports.includes(to)) continue;
    if (PENDING.includes(`${file} → ${target}`)) continue;
    violations.push(`${file} imports ${spec}: ${from} may not import ${to}`);
  }
  assert.deepEqual(violations, []);
});

/** Repository paths of the files that `dir/index.ts` publishes: the entry and what it re-exports, transitively. */
function publishedBy(dir: string): Set<string> | null {
  const entry = `${dir}/index.ts`;
  if (!statSync(join(root, entry), { throwIfNoEntry: false })) return null;
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const f = queue.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const text = readFileSync(join(root, f), "utf8");
    for (const m of text.matchAll(/export\s[^'"]*?from\s*['"](\.[^'"]+)['"]/g))
      queue.push(repoPath(resolve(dirname(join(root, f)), m[1]!)).replace(/\.js$/, ".ts"));
  }
  return seen;
}

test("another folder's code is imported through its public entry (index.ts and what it re-exports) or a listed entry file, never reached into", () => {
  const cache = new Map<string, Set<string> | null>();
  const reachIns: string[] = [];
  let checked = 0;
  for (const { file, spec, target } of allImports()) {
    if (!file.startsWith("src/")) continue;
    const unit = unitOf(target)!;
    if (unit === unitOf(file)) continue; // within one top folder
    // The owning folder: the nearest folder above the target with an entry, or an open sub-folder.
    let dir = target.split("/").slice(0, -1).join("/");
    let published: Set<string> | null = null;
    for (;;) {
      if (OPEN_SUBFOLDERS.includes(dir)) break;
      if (!cache.has(dir)) cache.set(dir, publishedBy(dir));
      published = cache.get(dir)!;
      if (published || dir === unit || !dir.includes("/")) break;
      dir = dir.split("/").slice(0, -1).join("/");
    }
    if (!published) continue; // a folder without an entry: its files are its interface
    checked++;
    const listed = (UNITS[unit]?.entries ?? []).map((e) => `${unit}/${e}`);
    if (!published.has(target) && !listed.includes(target))
      reachIns.push(`${file} imports ${spec}, which ${dir}/index.ts does not publish`);
  }
  assert.ok(checked > 200, `cross-folder imports were checked (${checked})`);
  assert.deepEqual(reachIns, []);
});

test("docs/layout.md's Layout section is the one rendered from the matrix (`npm run layout` rewrites it)", () => {
  const readme = readFileSync(join(root, "docs", "layout.md"), "utf8");
  const a = readme.indexOf(LAYOUT_BEGIN),
    b = readme.indexOf(LAYOUT_END);
  assert.ok(a >= 0 && b > a, `docs/layout.md has the markers ${LAYOUT_BEGIN} … ${LAYOUT_END}`);
  assert.equal(
    readme.slice(a + LAYOUT_BEGIN.length, b).trim(),
    renderLayout().trim(),
    "docs/layout.md's Layout section differs from test/arch/layers.ts: run `npm run layout`",
  );
  for (const u of Object.keys(UNITS)) assert.ok(renderLayout().includes(`\`${u}\``), `the layout names ${u}`);
});
