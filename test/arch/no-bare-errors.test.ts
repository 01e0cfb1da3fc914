import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** TypeScript files under dir, without src/kernels/assembly (AssemblyScript, which has no error classes). */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      if (relative(root, p).split(sep).join("/") !== "src/kernels/assembly") out.push(...tsFiles(p));
    } else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** `throw new Error(…)` and `throw Error(…)` statements of a source text, as `line: text` (comments and strings are not code). */
function bareThrows(name: string, text: string): string[] {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isThrowStatement(node)) {
      let e = node.expression;
      while (ts.isParenthesizedExpression(e)) e = e.expression;
      if (
        (ts.isNewExpression(e) || ts.isCallExpression(e)) &&
        ts.isIdentifier(e.expression) &&
        e.expression.text === "Error"
      ) {
        out.push(
          `${name}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

test("the bare-throw scanner sees `throw new Error(` and `throw Error(` in code, not in comments or strings", () => {
  const found = bareThrows(
    "x.ts",
    [
      'function f() { throw new Error("a"); }',
      'const g = () => { throw (Error("b")); };',
      "/** @example if (!v.ok) throw new Error(v.code); */",
      '// throw new Error("c")',
      'const s = "throw new Error(";',
      'function h() { throw new RangeError("d"); }',
    ].join("\n"),
  );
  assert.deepEqual(
    found.map((f) => f.split(":")[1]),
    ["1", "2"],
  );
});

test("src/ throws no bare Error: user-causable failures are SsgkrError subclasses with a catalogue code, broken invariants InternalError", () => {
  const files = tsFiles(join(root, "src"));
  assert.ok(files.length > 100, `source files were found (${files.length})`);
  const found = files.flatMap((f) => bareThrows(relative(root, f).split(sep).join("/"), readFileSync(f, "utf8")));
  assert.deepEqual(found, []);
});
