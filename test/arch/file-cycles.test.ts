import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/**
 * File cycles that remain in folders changed elsewhere, each as its sorted files. The test below
 * fails when one of them is gone, so that its entry is removed with the fix.
 */
const PENDING_CYCLES: readonly (readonly string[])[] = [];

/** Repository path with forward slashes. */
const repoPath = (p: string): string => relative(root, p).split(sep).join("/");

/** TypeScript files under dir, without src/kernels/assembly (AssemblyScript, compiled on its own). */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      if (repoPath(p) !== "src/kernels/assembly") out.push(...tsFiles(p));
    } else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** Relative module specifiers of static imports (type-only too), re-exports, side-effect imports and `import(…)` (calls and types). */
function relativeImports(text: string): string[] {
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)|import\s+['"](\.[^'"]+)['"]/g;
  return [...text.matchAll(re)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** The file import graph of src/, bench/ and test/: repository path → the repository files it imports. */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const top of ["src", "bench", "test"]) {
    for (const file of tsFiles(join(root, top))) {
      const targets = relativeImports(readFileSync(file, "utf8")).map((s) =>
        repoPath(resolve(dirname(file), s)).replace(/\.js$/, ".ts"),
      );
      graph.set(repoPath(file), [...new Set(targets)]);
    }
  }
  return graph;
}

/** The cycles of a graph: its strongly connected components with more than one node or a self-import, each sorted (Tarjan). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One import path around a cycle, for the message: a → b → … → a. */
function pathAround(graph: ReadonlyMap<string, readonly string[]>, component: readonly string[]): string {
  const inside = new Set(component);
  const start = component[0]!;
  const seen = new Set<string>();
  const walk = (v: string, path: string[]): string[] | null => {
    for (const w of graph.get(v) ?? []) {
      if (w === start) return [...path, w];
      if (!inside.has(w) || seen.has(w)) continue;
      seen.add(w);
      const found = walk(w, [...path, w]);
      if (found) return found;
    }
    return null;
  };
  return (walk(start, [start]) ?? component).join(" → ");
}

test("the cycle finder reports each cycle once, self-imports included, and nothing for a chain", () => {
  const g = new Map<string, string[]>([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a", "d"]],
    ["d", []],
    ["e", ["e"]],
    ["f", ["d", "outside"]],
  ]);
  assert.deepEqual(cyclesOf(g), [["a", "b", "c"], ["e"]]);
  assert.equal(pathAround(g, ["a", "b", "c"]), "a → b → c → a");
  assert.deepEqual(
    cyclesOf(
      new Map([
        ["a", ["b"]],
        ["b", ["c"]],
        ["c", []],
      ]),
    ),
    [],
  );
});

test("the import scanner sees type-only imports, re-exports, side-effect imports and import types", () => {
  const specs = relativeImports(
    `import type { A } from "./a.js";\nexport type { B } from "../b.js";\nimport "./c.js";\ntype D = typeof import("./d.js");\nimport {\n  type E,\n} from "./e.js";\nimport x from "lmdb";`,
  );
  assert.deepEqual(specs.sort(), ["../b.js", "./a.js", "./c.js", "./d.js", "./e.js"]);
});

test("no two files of src/, bench/ and test/ import each other, directly or through others (type-only imports included)", () => {
  const graph = fileGraph();
  assert.ok(graph.size > 300, `files were found (${graph.size})`);
  const pending = new Set(PENDING_CYCLES.map((c) => [...c].sort().join(" ")));
  const cycles = cyclesOf(graph);
  const found = cycles.filter((c) => !pending.has(c.join(" "))).map((c) => pathAround(graph, c));
  assert.deepEqual(found, [], "move the types the files share into a file of their own");
  const gone = [...pending].filter((p) => !cycles.some((c) => c.join(" ") === p));
  assert.deepEqual(gone, [], "a pending cycle is gone: remove it from PENDING_CYCLES");
});
