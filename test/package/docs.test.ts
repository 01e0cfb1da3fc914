import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  consumerProject,
  outputMatches,
  repoRoot,
  runnableBlocks,
  tsc,
  typeScriptBlocks,
  type RunnableBlock,
  type TypeScriptBlock,
} from "./consumer.js";

/** Uses every entry point and the kinds as plain strings, so their declarations are checked too. */
const API_SURFACE = `import * as root from "statesync-gkr";
import * as registry from "statesync-gkr/registry";
import * as serve from "statesync-gkr/serve";
import * as engine from "statesync-gkr/engine";
import * as v2 from "statesync-gkr/v2";
import * as pcs from "statesync-gkr/pcs";
import { OpKind, prepare, goldenFixture, corpusRequest, type OpKindName, type SyncVerdict } from "statesync-gkr";

const kinds: OpKindName[] = ["membership", "nonmembership", "update"];
const named: OpKind = OpKind.Update;
export function surface(): number {
  const verdict: SyncVerdict = { ok: true };
  void verdict; void named; void prepare; void goldenFixture; void corpusRequest;
  return kinds.length + Object.keys(root).length + Object.keys(registry).length + Object.keys(serve).length + Object.keys(engine).length + Object.keys(v2).length + Object.keys(pcs).length;
}
`;

function docFiles(): string[] {
  const docs = readdirSync(join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f));
  return ["README.md", ...docs];
}

const blocks: RunnableBlock[] = docFiles().flatMap((f) => runnableBlocks(f, readFileSync(join(repoRoot, f), "utf8")));
/** Plain ```ts blocks: each must compile on its own against the package (they are not run). */
const compiled: TypeScriptBlock[] = docFiles().flatMap((f) =>
  typeScriptBlocks(f, readFileSync(join(repoRoot, f), "utf8")),
);
const nameOf = (b: TypeScriptBlock) => `${b.file.replace(/[/.-]/g, "_")}_${b.line}`;

test("README.md holds runnable examples for a prover, a verifier and the registry", () => {
  const readme = blocks.filter((b) => b.file === "README.md");
  assert.ok(readme.length >= 3, `README.md has ${readme.length} runnable blocks`);
  assert.ok(
    readme.some((b) => b.code.includes("statesync-gkr/registry")),
    "one uses statesync-gkr/registry",
  );
  for (const b of blocks) {
    assert.doesNotMatch(b.code, /from "\.\.?\//, `${b.file}:${b.line} imports the package by name, not by path`);
    assert.ok(b.output !== undefined, `${b.file}:${b.line} is followed by the output it prints (a text block)`);
  }
});

test("docs/*.md hold plain ts blocks, each importing the package by name (never a path into it)", () => {
  assert.ok(
    compiled.some((b) => b.file.startsWith("docs/")),
    `docs/*.md have ${compiled.length} plain ts blocks`,
  );
  for (const b of compiled) {
    assert.doesNotMatch(
      b.code,
      /from "(\.\.?\/|statesync-gkr\/(dist|src)\/)/,
      `${b.file}:${b.line} imports the package by a path: import a public entry (statesync-gkr, statesync-gkr/<entry>) instead`,
    );
    assert.match(b.code, /^import /m, `${b.file}:${b.line} imports what it uses`);
  }
});

test("the public types and every ts block of README.md and docs/*.md type-check under `tsc --init` defaults (nodenext, no skipLibCheck); the runnable ones run", () => {
  const dir = consumerProject("ssgkr-docs-");
  try {
    writeFileSync(join(dir, "api-surface.ts"), API_SURFACE);
    for (const b of [...blocks, ...compiled]) writeFileSync(join(dir, `${nameOf(b)}.ts`), b.code);
    const r = tsc(dir, ["-p", "."]);
    // Point errors in block files back at the Markdown line.
    const mapped = (r.stdout + r.stderr).replace(
      /^(\w+)_(\d+)\.ts\((\d+),(\d+)\)/gm,
      (_m, f: string, line: string, l: string) => {
        const b = [...blocks, ...compiled].find((x) => nameOf(x) === `${f}_${line}`);
        return b ? `${b.file}:${b.line + Number(l)}` : _m;
      },
    );
    assert.equal(r.status, 0, `tsc in a fresh consumer project:\n${mapped}`);
    for (const b of blocks) {
      const run = spawnSync(process.execPath, [join(dir, `${nameOf(b)}.js`)], {
        cwd: dir,
        encoding: "utf8",
        timeout: 180_000,
      });
      assert.equal(run.status, 0, `${b.file}:${b.line} exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
      assert.ok(run.stdout.trim().length > 0, `${b.file}:${b.line} printed nothing`);
      if (b.output !== undefined)
        assert.ok(
          outputMatches(run.stdout, b.output),
          `${b.file}:${b.line} printed:\n${run.stdout}\nexpected (… = any text):\n${b.output}`,
        );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("runnable blocks are found with their output; `…` matches any text within a line only", () => {
  const md =
    "x\n```ts runnable\nconsole.log(1);\n```\n\n```text\nproof: … bytes\n```\n```ts\nnot runnable\n```\n```ts runnable\nlet a;\n```\n";
  const found = runnableBlocks("t.md", md);
  assert.deepEqual(found, [
    { file: "t.md", line: 2, code: "console.log(1);\n", output: "proof: … bytes" },
    { file: "t.md", line: 12, code: "let a;\n" },
  ]);
  assert.ok(outputMatches("proof: 176948 bytes\n", "proof: … bytes"));
  assert.ok(!outputMatches("proof: 1\nx bytes", "proof: … bytes"));
  assert.ok(!outputMatches("ACCEPT\nextra", "ACCEPT"));
  assert.ok(!outputMatches("REJECT X", "ACCEPT"));
  assert.deepEqual(typeScriptBlocks("t.md", md), [{ file: "t.md", line: 9, code: "not runnable\n" }]);
});
