import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const CORE = ["field", "hash", "transcript", "sumcheck", "gkr"];
const FRONTEND = ["smt", "sync", "codec", "serve", "cli", "counterparty", "http", "web"];

function tsFiles(dir: string): string[] {
  let out: string[] = [];
  let entries: string[] = [];
  try { entries = readdirSync(dir); } catch { return out; }
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
  const re = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
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
  const specs = importsOf(`import { a } from "../smt/x.js";\nexport * from '../sync/y.js';\nconst m = await import("../cli/z.js");\nimport "../serve/w.js";`);
  assert.deepEqual(specs.sort(), ["../cli/z.js", "../serve/w.js", "../smt/x.js", "../sync/y.js"]);
});

/** Relative imports of the files under src/<folder> (resolved to paths under src/), with their package imports. */
function importsUnder(folder: string): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = [];
  for (const file of tsFiles(join(root, "src", folder))) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = spec.startsWith(".") ? relative(join(root, "src"), resolve(dirname(file), spec)).split(sep).join("/") : spec;
      out.push({ file: relative(root, file), target });
    }
  }
  return out;
}

test("the browser page and the counterparty check import nothing Node-only (no store, server, CLI, lmdb, fastify, workers)", () => {
  const browserSide = [...importsUnder("web"), ...importsUnder("counterparty").filter((i) => !i.file.endsWith("prove.ts"))];
  assert.ok(browserSide.length > 5, "browser-side imports were found");
  const bad = browserSide.filter(({ target }) =>
    /^(http|cli|serve)\//.test(target) || target.startsWith("registry/store") || target.startsWith("registry/import") || target.startsWith("sync/parallel") ||
    ["lmdb", "fastify", "node:worker_threads", "node:os", "node:crypto", "node:path"].includes(target) || target.startsWith("@fastify/"));
  assert.deepEqual(bad.map((b) => `${b.file} imports ${b.target}`), []);
});

test("the HTTP API reaches the registry only through the name-statement adapter and the store; nothing but the CLI imports it", () => {
  const http = importsUnder("http").filter(({ target }) => /^registry\//.test(target) && !/^registry\/(store|mapping)/.test(target));
  assert.deepEqual(http.map((b) => `${b.file} imports ${b.target}`), []);
  const users: string[] = [];
  for (const folder of readdirSync(join(root, "src"))) {
    if (folder === "http" || folder === "cli" || !statSync(join(root, "src", folder)).isDirectory()) continue;
    for (const i of importsUnder(folder)) if (i.target.startsWith("http/")) users.push(`${i.file} imports ${i.target}`);
  }
  assert.deepEqual(users, []);
});

/** Profile v2 code: its own folders, and the structured-* files of the GKR core. */
const V2_FOLDERS = ["smt/v2", "codec/v2", "sync/v2"];
function isV2(target: string): boolean {
  const t = target.split(sep).join("/");
  return V2_FOLDERS.some((f) => t === f || t.startsWith(`${f}/`)) || /^gkr\/structured-[^/]+$/.test(t.replace(/\.(js|ts)$/, ""));
}

/** Folders whose code defines compat-v1 (the CLI, serving and the registry may offer both profiles). */
const COMPAT_V1 = ["field", "hash", "transcript", "sumcheck", "gkr", "smt", "sync", "codec", "kernels"];

test("compat-v1 code never imports profile v2 (src/smt/v2, src/codec/v2, src/sync/v2, src/gkr/structured-*)", () => {
  const violations: string[] = [];
  let v2Files = 0;
  for (const file of tsFiles(join(root, "src"))) {
    const self = relative(join(root, "src"), file);
    if (isV2(self)) { v2Files++; continue; }
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

test("the worker-pool core (src/workers) imports nothing of the package, and the catalogue (src/error-catalogue.ts) only errors.ts files and verifier code lists", () => {
  const workers = importsUnder("workers").filter(({ target }) => !target.startsWith("node:"));
  assert.ok(tsFiles(join(root, "src", "workers")).length >= 1, "the core was found");
  assert.deepEqual(workers.map((b) => `${b.file} imports ${b.target}`), []);
  const catalogue = importsOf(readFileSync(join(root, "src", "error-catalogue.ts"), "utf8")).map((s) => relative(join(root, "src"), resolve(join(root, "src"), s)).split(sep).join("/"));
  assert.ok(catalogue.length > 20, "the catalogue's imports were found");
  const allowed = /(^|\/)errors\.js$|^(sync\/request|counterparty\/claim|registry\/demo|gkr\/verifier|sumcheck\/verifier|smt\/semantics|sync\/verify|sync\/v2\/verify|registry\/verify-record|registry\/verify-block|counterparty\/verify)\.js$/;
  assert.deepEqual(catalogue.filter((t) => !allowed.test(t)), []);
});

/** Folders below the kernels: they get the kernel backend injected (src/hash/backend.ts), never import it. */
const BELOW_KERNELS = ["field", "hash", "transcript", "sumcheck"];

test("the field, hash, transcript and sumcheck code never imports the kernels (the backend is injected by src/kernels/backend.ts)", () => {
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

test("the kernels import only the field and hash layers below them (never gkr, sync, smt or anything above)", () => {
  const allowed = ["field/", "hash/", "kernels/"];
  const bad = importsUnder("kernels").filter(({ file, target }) =>
    !file.includes(`kernels${sep}assembly${sep}`) && !file.includes("kernels/assembly/") &&
    target.includes("/") && !target.startsWith("node:") && !allowed.some((a) => target.startsWith(a)));
  assert.deepEqual(bad.map((b) => `${b.file} imports ${b.target}`), []);
});
