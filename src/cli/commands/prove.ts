import type { Command } from "commander";
import { PROFILES } from "./profiles.js";

/**
 * `ssgkr prove --request R.json --out P.bin [--unchecked] [--profile v2] [--requests R1,R2,…]`: checks the statement natively, proves
 * it and writes inner-proof-v1 bytes; prints `<kind> depth=<d> bytes=<n> prove_ms=<ms>`.
 * The request's configuration is within the limits (src/sync/limits.ts) before anything is compiled.
 */
export function registerProve(program: Command): void {
  program
    .command("prove")
    .description("prove a request file and write the proof bytes (inner-proof-v1; inner-proof-v2 with --profile v2)")
    .option("--request <file>", "request JSON (see `ssgkr fixture`)")
    .option("--out <file>", "where to write the proof bytes (required)")
    .option("--unchecked", "prove even if the statement is false (for adversarial tests)", false)
    .option("--profile <name>", `proof profile: ${PROFILES.join(" or ")} (docs/profile-v2.md)`, "compat-v1")
    .option(
      "--requests <files>",
      "comma-separated request files of one kind and depth: one aggregate proof (--profile v2 or v3)",
    )
    .action(async (opts) => (await import("./prove-run.js")).runProveCommand(opts));
}
