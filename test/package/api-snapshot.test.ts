/**
 * The public surface, pinned: the names every entry of package.json "exports" publishes (values
 * and types, from the TypeScript sources; the values also as the compiled module's own keys)
 * equal test/package/api-snapshot.json. A change to the surface fails here until the snapshot is
 * rewritten on purpose (`UPDATE_API_SNAPSHOT=1`), so it shows in review as a diff of that file.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { repoRoot } from "./consumer.js";

const SNAPSHOT = join(repoRoot, "test", "package", "api-snapshot.json");
const UPDATE = "UPDATE_API_SNAPSHOT=1 node --test dist/test/package/api-snapshot.test.js";

/** The names one entry publishes: values (what `import * as m` holds at run time) and type-only names. */
export interface EntrySurface {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

/** Public entries: specifier (`statesync-gkr/registry`) → compiled file (`./dist/src/registry/index.js`). */
function entries(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | { default?: string }>;
  };
  const out = new Map<string, string>();
  for (const [key, target] of Object.entries(pkg.exports)) {
    const js = typeof target === "string" ? target : target.default;
    if (!js || !js.endsWith(".js")) continue;
    out.set(key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`, js);
  }
  return out;
}

/** The surface of each entry, read from its TypeScript source. */
function surfaces(): Record<string, EntrySurface> {
  const map = entries();
  const source = (js: string) => join(repoRoot, js.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));
  const files = [...map.values()].map(source);
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const out: Record<string, EntrySurface> = {};
  for (const [specifier, js] of map) {
    const file = program.getSourceFile(source(js));
    assert.ok(file, `${specifier}: ${source(js)} is compiled`);
    const moduleSymbol = checker.getSymbolAtLocation(file!);
    assert.ok(moduleSymbol, `${specifier} is a module`);
    const values: string[] = [],
      types: string[] = [];
    for (const exported of checker.getExportsOfModule(moduleSymbol!)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      (symbol.flags & ts.SymbolFlags.Value ? values : types).push(exported.getName());
    }
    out[specifier] = { values: values.sort(), types: types.sort() };
  }
  return out;
}

/** What differs between two snapshots, one line per entry and change ("" when equal). */
export function surfaceDiff(expected: Record<string, EntrySurface>, actual: Record<string, EntrySurface>): string {
  const lines: string[] = [];
  for (const entry of [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()) {
    const e = expected[entry],
      a = actual[entry];
    if (!e) {
      lines.push(`+ entry ${entry}`);
      continue;
    }
    if (!a) {
      lines.push(`- entry ${entry}`);
      continue;
    }
    for (const kind of ["values", "types"] as const) {
      const before = new Set(e[kind]),
        after = new Set(a[kind]);
      const added = a[kind].filter((n) => !before.has(n)),
        removed = e[kind].filter((n) => !after.has(n));
      if (added.length) lines.push(`+ ${entry} ${kind}: ${added.join(", ")}`);
      if (removed.length) lines.push(`- ${entry} ${kind}: ${removed.join(", ")}`);
    }
  }
  return lines.join("\n");
}

test("the exported names of every public entry equal test/package/api-snapshot.json", async () => {
  const actual = surfaces();
  assert.ok(
    Object.keys(actual).length >= 6,
    `the exports map's entries were found (${Object.keys(actual).join(", ")})`,
  );
  if (process.env["UPDATE_API_SNAPSHOT"] === "1") {
    writeFileSync(SNAPSHOT, JSON.stringify(actual, null, 2) + "\n");
    return;
  }
  const expected = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as Record<string, EntrySurface>;
  const diff = surfaceDiff(expected, actual);
  assert.equal(
    diff,
    "",
    `The public surface differs from test/package/api-snapshot.json:\n${diff}\n` +
      `If this change of the public API is intended, rewrite the snapshot with\n  ${UPDATE}\nand commit test/package/api-snapshot.json with the change.`,
  );
  assert.deepEqual(
    actual,
    expected,
    "the snapshot is sorted as the test writes it (rewrite it with UPDATE_API_SNAPSHOT=1)",
  );

  // The compiled modules publish exactly the value names.
  for (const [specifier, js] of entries()) {
    const mod = (await import(pathToFileURL(join(repoRoot, js)).href)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(mod).sort(), [...actual[specifier]!.values], `${specifier} (${js}) at run time`);
  }
});

test("the surface diff names each added and removed name per entry, and each added or removed entry", () => {
  const before = { a: { values: ["f", "g"], types: ["T"] }, b: { values: [], types: [] } };
  const after = { a: { values: ["g", "h"], types: ["T", "U"] }, c: { values: ["x"], types: [] } };
  assert.equal(surfaceDiff(before, before), "");
  assert.equal(
    surfaceDiff(before, after),
    ["+ a values: h", "- a values: f", "+ a types: U", "- entry b", "+ entry c"].join("\n"),
  );
});
