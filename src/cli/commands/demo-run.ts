/**
 * The implementation of `ssgkr demo`: the definitions (options, help) are in demo.ts, which
 * imports this file only when the command runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import {
  demoSucceeded,
  runDemo,
  verdictMismatches,
  type DemoPrivateStep,
  type DemoReport,
  type DemoStep,
} from "../../demo/registry-demo.js";
import { verifyCommand } from "./registry-names.js";
import { formatRoot } from "../../registry/root.js";

function integerOption(flag: string, text: string, min: number): number {
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new CliError(
      "BAD_OPTION",
      `demo: ${flag} must be an integer ≥ ${min}${flag === "--limit" ? ' or "all"' : ""}, got ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

const thousands = (n: number) => n.toLocaleString("en-US");

const millis = (ms: number | undefined) =>
  ms === undefined ? "-" : ms >= 100 ? thousands(Math.round(ms)) : ms.toFixed(1);

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function verdictText(s: DemoStep): string {
  return s.got === "ACCEPT" ? "ACCEPT" : `REJECT ${s.code}`;
}

/**
 * How the printed check lines start: `ssgkr` is not on PATH after `npm ci` in the repository,
 * but `npx ssgkr` runs this checkout's bin there (scripts/link-bin.mjs) and in any project that installed the package.
 */
export const REPEAT_PREFIX = "npx ";

/** The `ssgkr registry verify` line that repeats a step's check. */
export function stepCommand(r: Pick<DemoReport, "depth" | "leafMaxFields">, s: DemoStep): string {
  const base = {
    name: s.name,
    request: s.files.request,
    proof: s.files.proof,
    depth: r.depth,
    leafMaxFields: r.leafMaxFields,
  };
  return "side" in s.claim
    ? verifyCommand({ ...base, side: s.claim.side, root: s.claim.root })
    : verifyCommand({
        ...base,
        old: s.claim.old,
        new: s.claim.new,
        oldRoot: s.claim.oldRoot,
        newRoot: s.claim.newRoot,
      });
}

/** The `ssgkr registry verify` line that repeats a private-absence step's check (no request: a v3-zk proof is checked from the statement). */
export function privateStepCommand(r: Pick<DemoReport, "depth" | "leafMaxFields">, s: DemoPrivateStep): string {
  return verifyCommand({
    name: s.name,
    proof: s.files.proof,
    depth: r.depth,
    leafMaxFields: r.leafMaxFields,
    side: s.claim.side,
    root: s.claim.root,
  });
}

/** Every verdict of the report: the steps, then the private absence's. */
export function allVerdicts(r: Pick<DemoReport, "steps" | "privateAbsence">): (DemoStep | DemoPrivateStep)[] {
  return [...r.steps, ...r.privateAbsence.steps];
}

/** The private absence section of the text report. */
function privateSection(r: DemoReport): string[] {
  const p = r.privateAbsence;
  const out: string[] = [];
  out.push(
    "private absence (profile v3-zk, zero knowledge): step 2's statement again, proved without handing out the path",
  );
  if (p.skipped !== undefined) {
    out.push(`  skipped: ${p.skipped}`);
    return out;
  }
  const z1 = p.steps.find((s) => s.id === "Z1");
  for (const s of p.steps) {
    out.push(
      `  ${s.id.padEnd(3)} ${s.description}`,
      `      ${s.root}  proof ${thousands(s.proofBytes)} bytes${s.proveMs !== undefined ? `, prove ${millis(s.proveMs)} ms` : ""}, verify ${millis(s.verifyMs)} ms  expected ${s.expected}, got ${s.got === "ACCEPT" ? `ACCEPT (profile ${s.profile})` : `REJECT ${s.code}`}  ${s.expected === s.got ? "ok" : "MISMATCH"}`,
    );
    if (s.reason !== undefined) out.push(`      ${s.code}: ${s.reason}`);
    out.push(`      $ ${REPEAT_PREFIX}${privateStepCommand(r, s)}`);
  }
  if (z1 !== undefined)
    out.push(
      `  what Z1 does not reveal: the path. Step 2's plain proof hands out ${p.siblings} siblings (${thousands(p.pathBytes)} bytes in request.json),`,
      `  and they show which neighbouring subtrees of the key of ${JSON.stringify(z1.name)} are occupied (${p.occupiedNeighbours} of ${p.siblings}); the v3-zk`,
      `  proof (${thousands(z1.proofBytes)} bytes, no request) is checked from the name, the root and the proof alone, and its bytes reveal nothing`,
      `  about the path beyond the statement (docs/profile-v3.md §11). Preparing its circuit once took ${millis(p.prepareMs)} ms.`,
    );
  return out;
}

/** The text report: header, the table of steps, each step's check command, the roots and the summary line. */
export function formatReport(r: DemoReport, ok: boolean, removed = false): string {
  const header = ["step", "operation", "name", "proof bytes", "prove ms", "verify ms", "roots", "expected", "got", ""];
  const rows = r.steps.map((s) => [
    s.id,
    s.operation,
    s.name,
    thousands(s.proofBytes),
    millis(s.proveMs),
    millis(s.verifyMs),
    s.roots[0] === s.roots[1] ? s.roots[0] : `${s.roots[0]}→${s.roots[1]}`,
    s.expected,
    verdictText(s),
    s.expected === s.got ? "ok" : "MISMATCH",
  ]);
  const right = new Set([3, 4, 5]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => [...row[i]!].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const out: string[] = [];
  out.push(`ssgkr demo: ${r.records.toLocaleString("en-US")} records of ${r.source}`);
  out.push(
    `directory   ${r.dir}${removed ? " (removed after the demo; rerun with --keep or --dir DIR to keep the files the commands below read)" : ""}`,
  );
  out.push(
    `registry    name-keyed (record-leaf-v2): key = first ${r.depth} bits of Keccak-256(name), leaf bound ${r.leafMaxFields}; import ${seconds(r.importMs)}, prepare 3 circuits once ${seconds(r.prepareMs)}`,
  );
  out.push("");
  out.push(line(header));
  for (const row of rows) out.push(line(row));
  out.push("");
  out.push(
    "verify ms is the counterparty call (verifyRecordProof / verifyRecordUpdateProof: claim checks, then the proof) with the",
  );
  out.push(
    "circuits prepared once and derived wiring, as `npm run bench -- verify` measures; a fresh `ssgkr registry verify`",
  );
  out.push(
    "process also prepares the circuit of its proof first (about a second at depth 48), which the demo did once above.",
  );
  out.push("");
  out.push(
    "each `$` line repeats its step's check: run it in the repository after `npm ci` (or in a project that installed the package);",
    removed
      ? "the files it reads are kept only with --keep (or --dir DIR): this run removed them."
      : `the files it reads are kept in ${r.dir} (without --keep or --dir a run removes them).`,
  );
  out.push("");
  for (const s of r.steps) {
    out.push(`  ${s.id.padEnd(3)} ${s.description}`);
    if (s.reason !== undefined) out.push(`      ${s.code}: ${s.reason}`);
    out.push(`      $ ${REPEAT_PREFIX}${stepCommand(r, s)}`);
  }
  out.push("");
  out.push(...privateSection(r));
  out.push("");
  out.push("roots (8 field elements; R0 is the root after the import):");
  for (const root of r.roots)
    out.push(`  ${root.label}  ${formatRoot(root.root)}${root.after ? `  after ${root.after}` : ""}`);
  out.push("");
  out.push(
    `files: ${join(r.dir, "steps")}/<step>/request.json, proof.bin and statement.json (registry database in ${r.registryDir})`,
  );
  for (const s of r.steps) out.push(`  ${s.id.padEnd(3)} ${relative(r.dir, s.files.dir)}`);
  for (const s of r.privateAbsence.steps.slice(0, 1))
    out.push(`  Z1  ${relative(r.dir, s.files.dir)} (proof.bin and statement.json only: no request, no path)`);
  out.push("");
  const all = allVerdicts(r);
  const accepted = all.filter((s) => s.expected === "ACCEPT").length;
  const mismatches = verdictMismatches(all);
  out.push(
    ok
      ? `PASS: ${all.length}/${all.length} verdicts as expected (${accepted} ACCEPT, ${all.length - accepted} REJECT) in ${seconds(r.totalMs)}`
      : `FAIL: ${mismatches.length} of ${all.length} verdicts differ from the expected (steps ${mismatches.join(", ")}) in ${seconds(r.totalMs)}`,
  );
  return out.join("\n") + "\n";
}

function reportJson(r: DemoReport, ok: boolean, removed: boolean): unknown {
  return {
    ok,
    dir: r.dir,
    removed,
    registryDir: r.registryDir,
    source: r.source,
    records: r.records,
    mapping: "record-leaf-v2",
    depth: r.depth,
    leafMaxFields: r.leafMaxFields,
    importMs: r.importMs,
    prepareMs: r.prepareMs,
    totalMs: r.totalMs,
    roots: r.roots.map((x) => ({ label: x.label, root: formatRoot(x.root), after: x.after })),
    steps: r.steps.map((s) => ({
      id: s.id,
      operation: s.operation,
      description: s.description,
      name: s.name,
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
      statement: s.files.statement,
      verifyCommand: REPEAT_PREFIX + stepCommand(r, s),
    })),
    privateAbsence: {
      profile: "v3-zk",
      prepareMs: r.privateAbsence.prepareMs,
      siblings: r.privateAbsence.siblings,
      pathBytes: r.privateAbsence.pathBytes,
      occupiedNeighbours: r.privateAbsence.occupiedNeighbours,
      ...(r.privateAbsence.skipped !== undefined ? { skipped: r.privateAbsence.skipped } : {}),
      steps: r.privateAbsence.steps.map((s) => ({
        id: s.id,
        description: s.description,
        name: s.name,
        root: s.root,
        proofBytes: s.proofBytes,
        proveMs: s.proveMs ?? null,
        verifyMs: s.verifyMs,
        expected: s.expected,
        got: s.got,
        profile: s.profile ?? null,
        code: s.code ?? null,
        reason: s.reason ?? null,
        proof: s.files.proof,
        statement: s.files.statement,
        verifyCommand: REPEAT_PREFIX + privateStepCommand(r, s),
      })),
    },
  };
}

/** The action of `ssgkr demo`, with what commander parsed (the command's definition is in demo.ts). */
export async function runDemoCommand(
  setExit: (code: number) => void,
  opts: {
    dir?: string;
    keep?: boolean;
    source: string;
    limit: string;
    depth: string;
    threads?: string;
    json?: boolean;
    fault?: string;
  },
): Promise<void> {
  if (opts.source !== "npm-repos")
    throw new CliError("BAD_OPTION", `demo: unknown --source ${JSON.stringify(opts.source)} (known: npm-repos)`);
  const limit = opts.limit === "all" ? ("all" as const) : integerOption("--limit", opts.limit, 3);
  const depth = integerOption("--depth", opts.depth, 1);
  const threads = opts.threads === undefined ? undefined : integerOption("--threads", opts.threads, 0);
  const temporary = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "ssgkr-demo-"));
  const removeAfter = temporary && opts.keep !== true;
  process.stderr.write(`demo: working in ${dir}${removeAfter ? " (removed at the end; --keep keeps it)" : ""}\n`);
  try {
    const report = await runDemo({
      dir,
      limit,
      depth,
      ...(threads !== undefined ? { threads } : {}),
      ...(opts.fault !== undefined ? { faultStep: opts.fault } : {}),
      onProgress: (line) => process.stderr.write(`demo: ${line}\n`),
    });
    const ok = demoSucceeded(allVerdicts(report));
    if (opts.json) process.stdout.write(JSON.stringify(reportJson(report, ok, removeAfter)) + "\n");
    else process.stdout.write(formatReport(report, ok, removeAfter));
    setExit(ok ? EXIT_OK : EXIT_VERDICT);
  } finally {
    if (removeAfter) rmSync(dir, { recursive: true, force: true });
  }
}
