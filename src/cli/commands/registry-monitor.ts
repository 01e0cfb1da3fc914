/**
 * `ssgkr registry monitor --url URL --key VERIFIERKEY --state FILE [--once] [--interval S]
 * [--wait S]` (docs/registry.md "Auditing a registry over time"): follows a registry's signed
 * checkpoints and checks each new one against the last it accepted — its signature, then the chain
 * of block proofs between them (`GET /v1/consistency`) — keeping the last accepted checkpoint in
 * FILE across restarts. This file defines the options and help; the implementation
 * (registry-monitor-run.ts) is imported when the command runs.
 *
 * Exit codes: 0 consistent (`--once`: one check; the first run without FILE saves the current
 * checkpoint); 1 a proven inconsistency (two signed checkpoints of one size with different roots,
 * an older size, a chain that does not verify), both signed notes printed; 2 a usage, file or
 * (with `--once`) network error. Without `--once` network errors and blocks still being proved
 * are retried at the next interval.
 */
import type { Command } from "commander";

/** Registers `registry monitor`. */
export function registerRegistryMonitor(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("monitor")
    .description(
      "follow a registry's signed checkpoints: each new one's signature and its consistency with the last accepted (kept in --state); exit 1 with both signed notes on a proven inconsistency",
    )
    .requiredOption("--url <url>", "the registry's HTTP API, e.g. http://127.0.0.1:8080")
    .requiredOption(
      "--key <verifierkey>",
      "the verifier key NAME+HASH+KEY you trust (`ssgkr registry keygen` prints it)",
    )
    .requiredOption("--state <file>", "the last accepted checkpoint, kept across runs (created on the first run)")
    .option("--once", "check once against the saved state and exit (0 consistent, 1 inconsistent)")
    .option("--interval <seconds>", "seconds between checks when following", "60")
    .option(
      "--wait <seconds>",
      "wait at most this long per check for blocks still being proved (202 PROOF_PENDING)",
      "60",
    )
    .action(async (opts) => (await import("./registry-monitor-run.js")).runMonitorCommand(setExit, opts));
}
