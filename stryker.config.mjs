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
      "dist/test/gkr/derived-wiring.test.js",
      "dist/test/smt/semantics.test.js",
      "dist/test/sync/semantics-battery.test.js",
      "dist/test/sync/statement-transcript.test.js",
      "dist/test/sync/verifier-checks.test.js",
    ],
    forceBail: true,
  },
  mutate: [
    "src/sync/verify.ts",
    "src/sync/encoded.ts",
    "src/sync/statement-transcript.ts",
    "src/gkr/verifier.ts",
    "src/gkr/derived-wiring.ts",
    "src/gkr/input-claim.ts",
    "src/sumcheck/verifier.ts",
    "src/codec/decode.ts",
    "src/codec/identity.ts",
    "src/smt/semantics.ts",
  ],
  buildCommand: "tsc -p tsconfig.json",
  // Only the mutated files get `// @ts-nocheck` (the AssemblyScript kernels are not TypeScript to Babel).
  disableTypeChecks: "src/{sync,gkr,sumcheck,codec,smt}/*.ts",
  ignorePatterns: ["dist", "bench/results", "reports", "data"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ["clear-text", "progress", "json"],
  clearTextReporter: { allowColor: false, logTests: false },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
};
