/**
 * `ssgkr registry keygen --out KEYFILE [--origin NAME]`: generates the registry's Ed25519 signing
 * key into KEYFILE (mode 0600; an existing file is never overwritten) and prints the verifier key
 * `NAME+HASH+KEY` alone on one line.
 *
 * `ssgkr registry checkpoint --db DIR --signing-key KEYFILE`: prints the signed checkpoint of the
 * registry's head (C2SP tlog-checkpoint: origin, size = the head's batch number, base64 of the
 * root's 32 bytes; then the signature line), byte for byte what `GET /v1/checkpoint` serves.
 */
import type { Command } from "commander";
import { DEFAULT_ORIGIN } from "../../registry/checkpoint/signing-key.js";

/** Registers `registry keygen` and `registry checkpoint`. */
export function registerRegistryCheckpoint(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("keygen")
    .description(
      "generate the registry's Ed25519 signing key into KEYFILE (mode 0600, never overwritten); prints the verifier key NAME+HASH+KEY",
    )
    .requiredOption("--out <keyfile>", "the key file to create")
    .option(
      "--origin <name>",
      "the origin (key name) of the registry's checkpoints, e.g. example.com/registry",
      DEFAULT_ORIGIN,
    )
    .action(async (opts) => (await import("./registry-checkpoint-run.js")).runKeygenCommand(setExit, opts));

  registry
    .command("checkpoint")
    .description(
      "print the signed checkpoint of the registry's head (C2SP tlog-checkpoint; what GET /v1/checkpoint serves)",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .requiredOption("--signing-key <keyfile>", "the signing key file (`ssgkr registry keygen`)")
    .action(async (opts) => (await import("./registry-checkpoint-run.js")).runCheckpointCommand(setExit, opts));
}
