// Mutation testing of the verifier path: `npm run mutation`.
//
// How it runs: Stryker copies the project into .stryker-tmp/, instruments the TypeScript sources
// listed in `mutate` with every mutant at once (mutant schemata, `// @ts-nocheck` on top), and
// `buildCommand` compiles the sandbox with tsc, so the compiled dist/src/**/*.js carry the
// mutants. The tap runner then runs the focused suite below (compiled node:test files, one node
// process per file, TAP on stdout) with one mutant switched on at a time; per-file coverage
// decides which files a mutant needs.
//
// Reasons and messages of rejections are prose, not checks: scripts/stryker-ignore-messages.mjs
// ignores mutants inside them (the code argument, details and every condition stay mutated).
//
// Equivalent mutants (they survive; no test can or should kill them):
// - src/gkr/input-claim.ts `n > 30` → `n >= 30`: telling them apart needs a claim over 30
//   variables, i.e. a 2^30-entry (4 GiB) input table; the bound only stops allocation.
// - src/sync/verify.ts, verifySync: `catch { return false; }` → `catch {}`: `prepared` stays
//   undefined, verifyPrepared turns the resulting TypeError into MALFORMED_REQUEST and `.ok` is
//   false either way.
// - src/smt/semantics.ts, checkRequestShape: dropping `op === null` or `request.witness === null`
//   (and the `||` → `&&` variants that only differ for null): a null operation or witness then
//   fails one line later with a TypeError, which verdictOf reports as the same MALFORMED_REQUEST
//   without a cause; only the message differs. (The `typeof … !== "object"` halves are not
//   equivalent: a function carrying the right fields is killed in test/smt/semantics-checks.)
// - src/sync/v2/aggregate.ts, statementChecks: the copy-out loop `i < n` → `i <= n` writes
//   out[2n] and out[2n + 1] past the end of a Uint32Array of 2n entries, which typed arrays drop
//   (and reads states[16n], undefined, converted to 0): the returned array is the same.
// - src/sumcheck/verifier.ts, Horner start: `while (top >= 0 && isZero(…))` with `top > 0`, or
//   with isZero(…) → false: evaluating from a zero leading coefficient gives the same g(r), the
//   skip only saves multiplications.
// - src/gkr/verifier.ts: the final `return reject("VERIFIER_EXCEPTION", "unreachable …")` is
//   unreachable (for D ≥ 1 the loop returns at i = D − 1), so its mutants cannot be observed.
// - src/gkr/wiring/derived.ts: `performance.now() - t0` (deriveMs) is a timing statistic; the
//   builder tags are hints (every derived group is audited against its gates, and a group that
//   does not match is evaluated gate by gate), so mutants that only change whether a layer's tags
//   are used change statistics, never a predicate value.
// - src/sync/v2/encoded.ts identityEqual and src/sync/v2/aggregate.ts verifyUnguarded: the
//   circuitVersion, leafEncodingVersion and layoutId comparisons (→ true / false): the strict
//   decoder admits only the one value of each (2, 1, 0), which v2Identity also returns.
// - src/sync/v2/aggregate.ts: the replicated-circuit cache (`if (!m)` → true) and the timings
//   passed to onTimings only change speed and statistics; `requests.length > V2_MAX_AGGREGATE` →
//   `>=` differs only for an aggregate of exactly 4,096 operations.
// - src/codec/v2/decode.ts: `new Array(n)` → `new Array()` (pre-sizing only), and the
//   `e instanceof DecodeError` of the byte reader's rethrow (it throws nothing else).
// - src/sync/v3/proof.ts decodeV3OrReject: `e instanceof V3DecodeError` → true: decodeV3Message
//   throws nothing else (test/codec/v3/codec.test.ts fuzzes it), so the rethrow is unreachable.
// - src/sync/v3/proof.ts verifyV3Message: the catch around whirReadCommitmentOn (PCS_SHAPE) has
//   no coverage: the decoder has already decoded the commitment with decodeWhirCommitment, which
//   refuses the sets and variable counts whirReadCommitmentOn would throw on. The identity's
//   circuitVersion, leafEncodingVersion and layoutId comparisons are equivalent as in v2.
//
// - src/gkr/zk/verifier.ts: the loop bound `i < D` → `i <= D` (the loop returns at i = D − 1) and
//   the final unreachable return, as in src/gkr/verifier.ts.
// - src/sync/v3/message-steps.ts: `err instanceof SsgkrError` → true in buildV3Witness and
//   checkV3Statements (buildV3Inputs and publicHalf throw nothing else); `n > V3_MAX_OPERATIONS`
//   → `>=` differs only for exactly 4,096 operations (as in v2).
// - src/sync/v3/zk-proof.ts: the size limit `z.vectorBits > limit` → `>=` differs only for a
//   proof whose f has exactly the set's largest hiding size (512 d48 updates: minutes to prove).
//
// Sampling: MUTATION_SAMPLE=k/n (see mutateList) runs a fixed sample; CI runs 1/8 of the lines.
// MUTATION_FILES=/v2/ (comma-separated parts of paths) restricts the run to some verifier files;
// e.g. MUTATION_FILES=src/sync/v3/proof.ts MUTATION_SAMPLE=1/8 mutates 27 lines of one file
// (34 mutants, 6.5 min wall on 2 shared cores at load average 4-10, most of it the initial run of
// the focused suite).
import { readFileSync } from "node:fs";

/** The verifier path: every file whose checks decide ACCEPT or a rejection (compat-v1, profile v2, the WHIR commitment, profile v3). */
const VERIFIER_FILES = [
  "src/sync/verify.ts",
  "src/sync/encoded.ts",
  "src/sync/statement-transcript.ts",
  "src/gkr/verifier.ts",
  "src/gkr/wiring/derived.ts",
  "src/gkr/input-claim.ts",
  "src/sumcheck/verifier.ts",
  "src/codec/decode.ts",
  "src/codec/identity.ts",
  "src/smt/semantics.ts",
  // profile v2 (docs/profile-v2.md): single-operation, aggregate and block verifiers, their
  // statement transcript and the strict inner-proof-v2 decoder
  "src/sync/v2/verify.ts",
  "src/sync/v2/encoded.ts",
  "src/sync/v2/statement-transcript.ts",
  "src/sync/v2/aggregate.ts",
  "src/sync/v2/block.ts",
  "src/codec/v2/decode.ts",
  // the WHIR polynomial commitment (docs/pcs.md): the opening verifier, its acceptance policy,
  // the strict codecs, Merkle multiproofs, row folds, the round polynomial's value and the
  // multilinear evaluations the final check uses
  "src/pcs/verifier.ts",
  "src/pcs/api.ts",
  "src/pcs/acceptance.ts",
  "src/pcs/codec.ts",
  "src/pcs/merkle.ts",
  "src/pcs/fold.ts",
  "src/pcs/sumcheck.ts",
  "src/pcs/transcript-steps.ts",
  // the hiding commitment's masked opening (docs/pcs.md §12): its verifier and strict codecs
  "src/pcs/hiding-verifier.ts",
  "src/pcs/hiding-codec.ts",
  // profile v3: the aggregate and block verifiers, the split of the input claims into the public
  // and the committed half, the strict inner-proof-v3 decoder and the statements' public halves
  // and digests
  "src/sync/v3/proof.ts",
  "src/sync/v3/input-claims.ts",
  "src/codec/v3/message.ts",
  "src/smt/v3/statement.ts",
  // profile v3-zk (docs/profile-v3.md §11): the zero-knowledge GKR verifier, the v3-zk message
  // verifier, the statement checks both modes share, and the strict decoder of the
  // zero-knowledge layers. The masks' closed forms and the committed vector's layout
  // (src/gkr/zk/masks.ts, src/sync/v3/zk-layout.ts), which prover and verifier share, are run on
  // demand (MUTATION_FILES=/zk,message-steps): a third of their lines took 27 min on 2 shared cores.
  "src/gkr/zk/verifier.ts",
  "src/sync/v3/zk-proof.ts",
  "src/sync/v3/message-steps.ts",
  "src/sync/v3/verify-flow.ts",
  "src/codec/v3/zk-layers.ts",
  ...(process.env.MUTATION_FILES ? ["src/gkr/zk/masks.ts", "src/sync/v3/zk-layout.ts"] : []),
];

/**
 * MUTATION_SAMPLE=k/n mutates a fixed sample of lines instead of whole files: line L of file F is
 * kept iff FNV-1a(F, trimmed text of L, its occurrence number) mod n < k. The choice depends only
 * on the sources (not on time, order or machine), so a run is reproducible and a line keeps its
 * place in or out of the sample when other lines change. Mutants spanning several lines (block
 * statements) are only in the full run.
 */
function mutateList() {
  const sample = process.env.MUTATION_SAMPLE;
  // MUTATION_FILES=a,b keeps the verifier files whose path contains one of the parts (e.g. "/v2/")
  const only = process.env.MUTATION_FILES ? process.env.MUTATION_FILES.split(",").filter((x) => x !== "") : null;
  const files = only ? VERIFIER_FILES.filter((f) => only.some((part) => f.includes(part))) : VERIFIER_FILES;
  if (!sample) return files;
  const m = /^(\d+)\/(\d+)$/.exec(sample);
  if (!m || +m[1] < 1 || +m[1] > +m[2]) throw new Error(`MUTATION_SAMPLE must be k/n with 1 <= k <= n, got ${sample}`);
  const [k, n] = [+m[1], +m[2]];
  const fnv = (text) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    return h;
  };
  const ranges = [];
  for (const file of files) {
    const seen = new Map();
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const text = line.trim();
        if (text === "" || text.startsWith("//") || text.startsWith("*") || text.startsWith("/**")) return;
        const occurrence = (seen.get(text) ?? 0) + 1;
        seen.set(text, occurrence);
        if (fnv(`${file}\n${text}\n${occurrence}`) % n < k) ranges.push(`${file}:${i + 1}-${i + 1}`);
      });
  }
  return ranges;
}

export default {
  packageManager: "npm",
  plugins: ["@stryker-mutator/tap-runner", "./scripts/stryker-ignore-messages.mjs"],
  ignorers: ["messages"],
  testRunner: "tap",
  tap: {
    // The focused suite: every test file that exercises the verifier path, fastest first.
    testFiles: [
      "dist/test/codec/decode-errors.test.js",
      "dist/test/codec/check-order.test.js",
      "dist/test/codec/robustness.test.js",
      "dist/test/codec/roundtrip.test.js",
      "dist/test/codec/identity-checks.test.js",
      "dist/test/sumcheck/sumcheck.test.js",
      "dist/test/sumcheck/verifier-checks.test.js",
      "dist/test/gkr/malformed.test.js",
      "dist/test/gkr/prove-verify.test.js",
      "dist/test/gkr/wiring.test.js",
      "dist/test/gkr/oracles.test.js",
      "dist/test/gkr/verifier-checks.test.js",
      "dist/test/gkr/derived-wiring-checks.test.js",
      "dist/test/smt/semantics.test.js",
      "dist/test/smt/semantics-checks.test.js",
      "dist/test/sync/verifier-checks.test.js",
      "dist/test/sync/statement-transcript.test.js",
      "dist/test/sync/semantics-battery.test.js",
      "dist/test/gkr/derived-wiring.test.js",
      "dist/test/codec/v2/decode-checks.test.js",
      "dist/test/codec/v2/codec.test.js",
      "dist/test/sync/v2/verifier-checks.test.js",
      "dist/test/pcs/codec.test.js",
      "dist/test/pcs/primitives.test.js",
      "dist/test/pcs/whir.test.js",
      "dist/test/pcs/block-claims.test.js",
      "dist/test/pcs/bound-blocks.test.js",
      "dist/test/pcs/ext-unit-blocks.test.js",
      "dist/test/pcs/hiding.test.js",
      "dist/test/pcs/hiding-codec.test.js",
      "dist/test/pcs/witness-forgery.test.js",
      "dist/test/codec/v3/codec.test.js",
      "dist/test/sync/v3/input-claims.test.js",
      "dist/test/sync/v3/proof.test.js",
      "dist/test/sync/v3/verifier-checks.test.js",
      "dist/test/sync/v3/forgeries.test.js",
      "dist/test/gkr/zk.test.js",
      "dist/test/sync/v3/zk-verifier-checks.test.js",
      "dist/test/sync/v3/zk.test.js",
      "dist/test/sync/v3/zk-forgeries.test.js",
    ],
    forceBail: true,
    // The kernel backend the package entry points install (test/support/kernel-backend.ts).
    nodeArgs: ["--import", "./dist/test/support/kernel-backend.js"],
  },
  mutate: mutateList(),

  buildCommand: "tsc -p tsconfig.json",
  // Only the mutated files get `// @ts-nocheck` (the AssemblyScript kernels are not TypeScript to Babel).
  disableTypeChecks: "src/{sync,gkr,sumcheck,codec,smt,pcs}/{*,v2/*,v3/*,wiring/*,zk/*}.ts",
  ignorePatterns: ["dist", "bench/results", "reports", "data"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 10000,
  // the initial run of the focused suite takes 1.5 min on 2 shared cores and has exceeded
  // Stryker's default 5 min when the machine was loaded (load average above 30)
  dryRunTimeoutMinutes: 15,
  reporters: ["clear-text", "progress", "json"],
  clearTextReporter: { allowColor: false, logTests: false },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  // Fail the run when the score drops below what the suite reaches today (sampled or full).
  thresholds: { high: 95, low: 90, break: 85 },
};
