import type { Command } from "commander";
import { KNOWN_ANSWER_CHECKS } from "../selftest-checks.js";
import { GOLDEN_CHECKS } from "../golden-checks.js";
import { EXIT_OK, EXIT_VERDICT } from "../exit.js";

/**
 * `ssgkr selftest`: one line per known-answer check (`ok   <name>` or `FAIL <name>: …`);
 * exit 0 only if every check passes.
 */
export function registerSelftest(program: Command, setExit: (code: number) => void): void {
  program
    .command("selftest")
    .description("run the built-in known-answer checks (Poseidon2, compression, transcript, leaf hashes, commitment, golden proofs)")
    .action(() => {
      let failed = 0;
      const checks = [...KNOWN_ANSWER_CHECKS, ...GOLDEN_CHECKS];
      for (const check of checks) {
        const started = performance.now();
        let line: string;
        try {
          const got = check.run();
          const ok = got.length === check.expected.length && got.every((v, i) => v === check.expected[i]);
          const ms = (performance.now() - started).toFixed(1);
          line = ok ? `ok   ${check.name} (${ms} ms)` : `FAIL ${check.name}: got [${got.join(", ")}], expected [${check.expected.join(", ")}]`;
          if (!ok) failed++;
        } catch (err) {
          failed++;
          line = `FAIL ${check.name}: ${(err as Error).message}`;
        }
        process.stdout.write(line + "\n");
      }
      process.stdout.write(failed === 0 ? `selftest: all ${checks.length} checks passed\n` : `selftest: ${failed} of ${checks.length} checks FAILED\n`);
      setExit(failed === 0 ? EXIT_OK : EXIT_VERDICT);
    });
}
