/**
 * A consumer project in a temporary directory, set up as a new user would: `tsc --init` (its
 * defaults: module nodenext, strict, "types": [], verbatimModuleSyntax, …) with skipLibCheck
 * turned off, "type": "module", and the package reachable as `statesync-gkr`.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file runs from dist/test/package). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const tscBin = createRequire(join(repoRoot, "package.json")).resolve("typescript/bin/tsc");

/** Runs the repository's TypeScript compiler in `cwd`. */
export function tsc(cwd: string, args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [tscBin, ...args], { cwd, encoding: "utf8", timeout: 180_000 });
}

/**
 * A fresh consumer directory with `tsc --init`'s tsconfig.json (skipLibCheck false) and a
 * package.json of "type": "module". `packageDir` (default: a link to this checkout) is placed
 * at node_modules/statesync-gkr unless `link` is false.
 */
export function consumerProject(prefix: string, link = true): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const init = tsc(dir, ["--init"]);
  if (init.status !== 0) throw new Error(`tsc --init failed: ${init.stdout}${init.stderr}`);
  const configPath = join(dir, "tsconfig.json");
  const config = readFileSync(configPath, "utf8");
  if (!/"skipLibCheck": true/.test(config))
    throw new Error("tsc --init no longer writes skipLibCheck: true; revisit this helper");
  writeFileSync(configPath, config.replace(/"skipLibCheck": true/, '"skipLibCheck": false'));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2) + "\n",
  );
  if (link) {
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    symlinkSync(repoRoot, join(dir, "node_modules", "statesync-gkr"), "dir");
  }
  return dir;
}

/** A code block of a Markdown file marked ```ts runnable. */
export interface RunnableBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  /**
   * The output it prints, from a ```text block right after it (a blank line between is fine),
   * or undefined; `…` in it stands for any text within a line.
   */
  readonly output?: string;
}

/** Every ```ts runnable block of `markdown`. */
export function runnableBlocks(file: string, markdown: string): RunnableBlock[] {
  const out: RunnableBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts runnable\s*$/.test(lines[i]!)) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${file}:${start + 1}: unterminated runnable block`);
    let j = i + 1;
    if (lines[j] === "") j++;
    let output: string | undefined;
    if (/^```text\s*$/.test(lines[j] ?? "")) {
      const o: string[] = [];
      for (j++; j < lines.length && !/^```\s*$/.test(lines[j]!); j++) o.push(lines[j]!);
      output = o.join("\n");
    }
    out.push(
      output === undefined
        ? { file, line: start + 1, code: body.join("\n") + "\n" }
        : { file, line: start + 1, code: body.join("\n") + "\n", output },
    );
  }
  return out;
}

/** A code block of a Markdown file marked plain ```ts: compiled against the package, not run. */
export interface TypeScriptBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
}

/** Every plain ```ts block of `markdown` (not ```ts runnable). */
export function typeScriptBlocks(file: string, markdown: string): TypeScriptBlock[] {
  const out: TypeScriptBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts\s*$/.test(lines[i]!)) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${file}:${start + 1}: unterminated ts block`);
    out.push({ file, line: start + 1, code: body.join("\n") + "\n" });
  }
  return out;
}

/** Whether `actual` (trailing white space ignored) matches `expected`, where `…` is any text within a line. */
export function outputMatches(actual: string, expected: string): boolean {
  const pattern = expected
    .trimEnd()
    .split("\n")
    .map((l) =>
      l
        .split("…")
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*"),
    )
    .join("\n");
  return new RegExp(`^${pattern}$`).test(actual.trimEnd());
}
