// Mutation testing of the verifier path (npm run mutation). Stryker instruments the TypeScript
// sources in its sandbox, `tsc` compiles them there, and the tap runner runs the focused suite
// (compiled node:test files) against each mutant.
export default {
  packageManager: "npm",
  testRunner: "tap",
  tap: {
    testFiles: [
      "dist/test/sync/verifier-checks.test.js",
    ],
    forceBail: true,
  },
  mutate: [
    "src/codec/identity.ts",
  ],
  buildCommand: "node node_modules/typescript/bin/tsc -p tsconfig.json",
  ignorePatterns: ["dist", "bench/results", "reports"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
};
