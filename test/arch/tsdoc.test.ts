import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The source file of each entry point of the package's exports map (`./dist/src/x.js` → `src/x.ts`). */
function entryPoints(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, string | { default?: string }>;
  };
  const out: string[] = [];
  for (const target of Object.values(pkg.exports)) {
    const js = typeof target === "string" ? target : target.default;
    if (!js || !js.endsWith(".js") || !js.startsWith("./dist/src/")) continue;
    out.push(join(root, js.slice("./dist/".length).replace(/\.js$/, ".ts")));
  }
  return out;
}

/** Public exports (name and declaring file) of the entry points whose declaration carries no TSDoc. */
export function undocumentedExports(): { entries: number; exports: number; undocumented: string[] } {
  const entries = entryPoints();
  const program = ts.createProgram(entries, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const seen = new Set<ts.Symbol>();
  const undocumented = new Set<string>();
  let exports = 0;
  for (const entry of entries) {
    const file = program.getSourceFile(entry);
    assert.ok(file, `entry point ${entry} is compiled`);
    const moduleSymbol = checker.getSymbolAtLocation(file!);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (seen.has(symbol)) continue;
      seen.add(symbol);
      exports++;
      const declarations = symbol.getDeclarations() ?? [];
      if (declarations.length === 0) continue;
      const documented =
        symbol.getDocumentationComment(checker).length > 0 ||
        exported.getDocumentationComment(checker).length > 0 ||
        declarations.some((d) => ts.getJSDocTags(d).length > 0);
      const alias = exported.declarations?.[0];
      const statement = alias && ts.isNamespaceExport(alias) ? alias.parent : alias;
      if (!documented && !(statement && ts.getJSDocCommentsAndTags(statement).length > 0)) {
        const d = declarations[0]!;
        undocumented.add(`${relative(root, d.getSourceFile().fileName)}: ${symbol.getName()}`);
      }
    }
  }
  return { entries: entries.length, exports, undocumented: [...undocumented].sort() };
}

test("every public export of the package's entry points carries TSDoc", () => {
  const { entries, exports, undocumented } = undocumentedExports();
  assert.ok(entries >= 4, "the exports map's entry points were found");
  assert.ok(exports > 100, `public exports were found (${exports})`);
  assert.deepEqual(undocumented, []);
});
