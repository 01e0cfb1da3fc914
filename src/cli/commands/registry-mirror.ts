/**
 * `ssgkr registry mirror --from URL --key VERIFIERKEY --db DIR [--listen HOST:PORT] [--once]
 * [--interval S] [--wait S] [--timeout S] [--evidence DIR]` (docs/scale-out.md "Registry
 * mirrors"): keeps a copy of a primary's registry in DIR that applies only what it verified —
 * each signed checkpoint (with the trusted key and its origin) and each batch's block proofs
 * between two checkpoints — and with `--listen` serves the read API of docs/http.md read-only
 * from it, the primary's checkpoints byte for byte and `GET /v1/status` with its lag. This file
 * defines the options and help; the implementation (registry-mirror-run.ts) is imported when the
 * command runs.
 *
 * Exit codes: 0 `--once` caught up to the primary's head; 2 a usage error, a fault of the network
 * or the primary with `--once`, or something that does not verify (`MIRROR_FORK`,
 * `MIRROR_BAD_CHAIN`, …: the evidence file is named) with `--once` or without `--listen`, as one
 * line `error CODE: message`. Following with `--listen`, a mirror that halted keeps serving its
 * last verified state with the problem in `GET /v1/status`.
 */
import type { Command } from "commander";

/** Registers `registry mirror`. */
export function registerRegistryMirror(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("mirror")
    .description(
      "a copy of a registry that applies only what it verified (signed checkpoints, block proofs); serves the read API read-only with --listen",
    )
    .requiredOption("--from <url>", "the primary's HTTP API, e.g. http://127.0.0.1:8080")
    .requiredOption(
      "--key <verifierkey>",
      "the primary's verifier key NAME+HASH+KEY, the one thing the mirror trusts (`ssgkr registry keygen` prints it)",
    )
    .requiredOption("--db <dir>", "the mirror's registry (created with the primary's depth and leaf bound when absent)")
    .option("--listen <host:port>", "serve the read API read-only from the copy (port 0 picks a free port)")
    .option("--once", "catch up to the primary's current head, then exit (0 caught up)")
    .option("--interval <seconds>", "seconds between rounds when following", "5")
    .option("--wait <seconds>", "seconds a round waits for blocks still being proved (202 PROOF_PENDING)", "300")
    .option("--timeout <seconds>", "seconds per request to the primary, its body included", "30")
    .option("--evidence <dir>", "where evidence files go (default DIR.evidence beside the registry)")
    .action(async (opts) => (await import("./registry-mirror-run.js")).runMirrorCommand(setExit, opts));
}
