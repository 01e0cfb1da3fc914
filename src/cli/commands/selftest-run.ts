/**
 * The implementation of `ssgkr selftest`: the definitions (options, help) are in selftest.ts,
 * which imports this file only when the command runs.
 */
import { KNOWN_ANSWER_CHECKS } from "../selftest-checks.js";
import { GOLDEN_CHECKS } from "../golden-checks.js";
import { EXIT_OK, EXIT_VERDICT } from "../exit.js";

/** The action of `ssgkr selftest`, with what commander parsed (the command's definition is in selftest.ts). */
export async function runSelftestCommand(setExit: (code: number) => void): Promise<void> {
  let failed = 0;
  const checks = [...KNOWN_ANSWER_CHECKS, ...GOLDEN_CHECKS];
  for (const check of checks) {
    const started = performance.now();
    let line: string;
    try {
      const got = check.run();
      const ok = got.length === check.expected.length && got.every((v, i) => v === check.expected[i]);
      const ms = (performance.now() - started).toFixed(1);
      line = ok
        ? `ok   ${check.name} (${ms} ms)`
        : `FAIL ${check.name}: got [${got.join(", ")}], expected [${check.expected.join(", ")}]`;
      if (!ok) failed++;
    } catch (err) {
      failed++;
      line = `FAIL ${check.name}: ${(err as Error).message}`;
    }
    process.stdout.write(line + "\n");
  }
  process.stdout.write(
    failed === 0
      ? `selftest: all ${checks.length} checks passed\n`
      : `selftest: ${failed} of ${checks.length} checks FAILED\n`,
  );
  setExit(failed === 0 ? EXIT_OK : EXIT_VERDICT);
}
