import { Option, type Command } from "commander";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { demoSucceeded, runDemo, verdictMismatches, type DemoReport, type DemoStep } from "../../registry/demo.js";
import { NPM_REPOS_PACKAGE, NPM_REPOS_VERSION } from "../../registry/dataset.js";

/**
 * `ssgkr demo [--dir DIR] [--source npm-repos] [--limit N|all] [--depth D] [--json]`: imports the
 * npm package → repository map into a registry, prepares the three circuits, proves and verifies
 * membership, non-membership (never used and deleted), delete, restore, replace and insert, plus
 * negative controls that must be rejected (src/registry/demo.ts). Prints a table of the
 * verdicts, the roots and where the request/proof files went; progress on stderr.
 *
 * Exit codes: 0 every verdict is the expected one; 1 some verdict differs; 2 unusable input
 * (non-empty --dir, unknown source, full dataset not fetched).
 */
export function registerDemo(program: Command, setExit: (code: number) => void): void {
  program
    .command("demo")
    .description(`prove and verify real registry statements on the npm package → repository map (${NPM_REPOS_PACKAGE}@${NPM_REPOS_VERSION})`)
    .option("--dir <dir>", "working directory, new or empty (default: a fresh temporary directory)")
    .option("--source <name>", "dataset: npm-repos", "npm-repos")
    .option("--limit <n>", "records to import: N (up to 100000 offline) or \"all\" (full dataset, fetched with scripts/npm-repos-fetch.mjs)", "100000")
    .option("--depth <d>", "tree depth of the demo registry (1..48)", "24")
    .option("--threads <n>", "hash worker threads of the import")
    .option("--json", "print the report as JSON")
    .addOption(new Option("--fault <step>", "flip one bit of this step's proof before it is verified (checks that a wrong verdict fails)").hideHelp())
    .action(async (opts: { dir?: string; source: string; limit: string; depth: string; threads?: string; json?: boolean; fault?: string }) => {
      if (opts.source !== "npm-repos") throw new CliError("BAD_OPTION", `demo: unknown --source ${JSON.stringify(opts.source)} (known: npm-repos)`);
      const limit = opts.limit === "all" ? ("all" as const) : integerOption("--limit", opts.limit, 3);
      const depth = integerOption("--depth", opts.depth, 1);
      const threads = opts.threads === undefined ? undefined : integerOption("--threads", opts.threads, 0);
      const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "ssgkr-demo-"));
      process.stderr.write(`demo: working in ${dir}\n`);
      const report = await runDemo({
        dir,
        limit,
        depth,
        ...(threads !== undefined ? { threads } : {}),
        ...(opts.fault !== undefined ? { faultStep: opts.fault } : {}),
        onProgress: (line) => process.stderr.write(`demo: ${line}\n`),
      });
      const ok = demoSucceeded(report.steps);
      if (opts.json) process.stdout.write(JSON.stringify(reportJson(report, ok)) + "\n");
      else process.stdout.write(formatReport(report, ok));
      setExit(ok ? EXIT_OK : EXIT_VERDICT);
    });
}

function integerOption(flag: string, text: string, min: number): number {
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new CliError("BAD_OPTION", `demo: ${flag} must be an integer ≥ ${min}${flag === "--limit" ? ' or "all"' : ""}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

const thousands = (n: number) => n.toLocaleString("en-US");
const millis = (ms: number | undefined) => (ms === undefined ? "-" : ms >= 100 ? thousands(Math.round(ms)) : ms.toFixed(1));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function verdictText(s: DemoStep): string {
  return s.got === "ACCEPT" ? "ACCEPT" : `REJECT ${s.code}`;
}

/** The text report: header, the table of steps, the roots, the files and the summary line. */
export function formatReport(r: DemoReport, ok: boolean): string {
  const header = ["step", "operation", "package", "slot", "proof bytes", "prove ms", "verify ms", "roots", "expected", "got", ""];
  const rows = r.steps.map((s) => [
    s.id,
    s.operation,
    s.packageName ?? "(never used)",
    String(s.slot),
    thousands(s.proofBytes),
    millis(s.proveMs),
    millis(s.verifyMs),
    s.roots[0] === s.roots[1] ? s.roots[0] : `${s.roots[0]}→${s.roots[1]}`,
    s.expected,
    verdictText(s),
    s.expected === s.got ? "ok" : "MISMATCH",
  ]);
  const right = new Set([3, 4, 5, 6]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => [...row[i]!].length)));
  const line = (cells: string[]) => cells.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  const out: string[] = [];
  out.push(`ssgkr demo: ${r.records.toLocaleString("en-US")} records of ${r.source}`);
  out.push(`directory   ${r.dir}`);
  out.push(`registry    depth ${r.depth}, leaf bound ${r.leafMaxFields}; import ${seconds(r.importMs)}, prepare 3 circuits ${seconds(r.prepareMs)}`);
  out.push("");
  out.push(line(header));
  for (const row of rows) out.push(line(row));
  out.push("");
  for (const s of r.steps) {
    out.push(`  ${s.id.padEnd(3)} ${s.description}`);
    if (s.reason !== undefined) out.push(`      verifier: ${s.code}: ${s.reason}`);
  }
  out.push("");
  out.push("roots (8 field elements; R0 is the root after the import):");
  for (const root of r.roots) out.push(`  ${root.label}  ${Array.from(root.root).join(",")}${root.after ? `  after ${root.after}` : ""}`);
  out.push("");
  out.push(`files: ${join(r.dir, "steps")}/<step>/request.json and proof.bin (registry database in ${r.registryDir})`);
  for (const s of r.steps) out.push(`  ${s.id.padEnd(3)} ${relative(r.dir, s.files.dir)}`);
  const first = r.steps[0];
  if (first) out.push(`check one:  ssgkr verify --request ${first.files.request} --proof ${first.files.proof}`);
  out.push("");
  const accepted = r.steps.filter((s) => s.expected === "ACCEPT").length;
  const mismatches = verdictMismatches(r.steps);
  out.push(
    ok
      ? `PASS: ${r.steps.length}/${r.steps.length} verdicts as expected (${accepted} ACCEPT, ${r.steps.length - accepted} REJECT) in ${seconds(r.totalMs)}`
      : `FAIL: ${mismatches.length} of ${r.steps.length} verdicts differ from the expected (steps ${mismatches.join(", ")}) in ${seconds(r.totalMs)}`,
  );
  return out.join("\n") + "\n";
}

function reportJson(r: DemoReport, ok: boolean): unknown {
  return {
    ok,
    dir: r.dir,
    registryDir: r.registryDir,
    source: r.source,
    records: r.records,
    depth: r.depth,
    leafMaxFields: r.leafMaxFields,
    importMs: r.importMs,
    prepareMs: r.prepareMs,
    totalMs: r.totalMs,
    roots: r.roots.map((x) => ({ label: x.label, root: Array.from(x.root), after: x.after })),
    steps: r.steps.map((s) => ({
      id: s.id,
      operation: s.operation,
      description: s.description,
      package: s.packageName ?? null,
      slot: s.slot,
      roots: s.roots,
      proofBytes: s.proofBytes,
      proveMs: s.proveMs ?? null,
      verifyMs: s.verifyMs,
      expected: s.expected,
      got: s.got,
      code: s.code ?? null,
      reason: s.reason ?? null,
      request: s.files.request,
      proof: s.files.proof,
    })),
  };
}
