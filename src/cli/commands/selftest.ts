import type { Command } from "commander";

/**
 * `ssgkr selftest`: one line per known-answer check (`ok   <name>` or `FAIL <name>: …`);
 * exit 0 only if every check passes.
 */
export function registerSelftest(program: Command, setExit: (code: number) => void): void {
  program
    .command("selftest")
    .description(
      "run the built-in known-answer checks (Poseidon2, compression, transcript, leaf hashes, commitment, golden proofs)",
    )
    .action(async () => (await import("./selftest-run.js")).runSelftestCommand(setExit));
}
