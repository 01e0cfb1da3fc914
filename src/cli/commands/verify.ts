import type { Command } from "commander";
import { UNPINNED_NOTE } from "./verify-note.js";

export { UNPINNED_NOTE } from "./verify-note.js";

const HELP_AFTER = `
ACCEPT means the proof is valid for the request, the roots in the request included. Without
--expect-old-root that says nothing about trust: anyone can make a self-consistent tree and prove
statements about its root. The line then reads
  ACCEPT (${UNPINNED_NOTE})
With --expect-old-root (and --expect-new-root) the roots are first compared with the ones you
trust, and the line names them: ACCEPT (pinned old_root <64 hex characters>). See docs/security.md.

Exit codes: 0 ACCEPT; 1 REJECT <code>: <reason>; 2 unusable input (error <CODE>: ...).`;

/**
 * `ssgkr verify --request R.json --proof P.bin [--expect-old-root D] [--expect-new-root D]`:
 * prints `ACCEPT (…)` (exit 0) or `REJECT <code>: <reason>` (exit 1). The note after ACCEPT says
 * whether the roots were pinned (`UNPINNED_NOTE`) or names the pinned roots.
 *
 * Work is bounded before it starts: the request file is read only up to 1 MiB, the proof file
 * only if it is not larger than the largest valid proof for the request's configuration, and the
 * circuit is prepared only for a proof that declares the request's configuration.
 */
export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description(
      "verify proof bytes strictly against the original request (the profile is read from the proof; pin the roots you trust with --expect-old-root)",
    )
    .option("--request <file>", "request JSON the proof must be about")
    .option("--requests <files>", "comma-separated request files, in order, of an aggregate proof (profile v2 or v3)")
    .requiredOption("--proof <file>", "proof bytes (inner-proof-v1, -v2 or -v3: the profile is read from the proof)")
    .option(
      "--expect-old-root <d>",
      "the old root you trust: 64 hex characters as `ssgkr registry root` prints it, or its 8 elements as a,b,… or [a, b, …]",
    )
    .option("--expect-new-root <d>", "the new root you trust (64 hex characters, or a,b,… / [a, b, …])")
    .addHelpText("after", HELP_AFTER)
    .action(async (opts) => (await import("./verify-run.js")).runVerifyCommand(opts));
}
