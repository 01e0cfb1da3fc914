/**
 * `ssgkr registry verify-consistency --url URL --key VERIFIERKEY --from CKPT1 --to CKPT2
 * [--wait SECONDS]` (docs/registry.md "Consistency between checkpoints"): that two signed
 * checkpoints belong to one history, checked from both signatures and the chain of block proofs
 * between them (`GET /v1/consistency`). This file defines the options and help; the
 * implementation (registry-verify-consistency-run.ts) is imported when the command runs.
 *
 * Prints `ACCEPT …` (exit 0) or `REJECT CODE: reason` (exit 1: a checkpoint whose signature does
 * not verify, or a chain that does not take one root to the other); a usage, file or network
 * error is one line `error CODE: message` on stderr (exit 2), the server's code when it answered
 * with one (`CHAIN_NOT_PROVABLE`, `SIZE_UNKNOWN`, …), `NETWORK_ERROR` otherwise.
 */
import type { Command } from "commander";

/** Registers `registry verify-consistency`. */
export function registerRegistryVerifyConsistency(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("verify-consistency")
    .description(
      "check that two signed checkpoints belong to one history: both signatures, then the chain of block proofs between them from GET /v1/consistency; prints ACCEPT (exit 0) or REJECT CODE: reason (exit 1)",
    )
    .requiredOption("--url <url>", "the registry's HTTP API, e.g. http://127.0.0.1:8080")
    .requiredOption(
      "--key <verifierkey>",
      "the verifier key NAME+HASH+KEY you trust (`ssgkr registry keygen` prints it)",
    )
    .requiredOption("--from <file>", "the older signed checkpoint (GET /v1/checkpoint, `ssgkr registry checkpoint`)")
    .requiredOption("--to <file>", "the newer signed checkpoint")
    .option("--wait <seconds>", "wait at most this long in all for blocks still being proved (202 PROOF_PENDING)", "60")
    .action(async (opts) =>
      (await import("./registry-verify-consistency-run.js")).runVerifyConsistencyCommand(setExit, opts),
    );
}
