/**
 * `ssgkr registry keygen --out KEYFILE [--origin NAME]`: generates the registry's Ed25519 signing
 * key into KEYFILE (mode 0600; an existing file is never overwritten) and prints the verifier key
 * `NAME+HASH+KEY` alone on one line.
 */
import type { Command } from "commander";
import { DEFAULT_ORIGIN, generateSigningKey } from "../../../registry/checkpoint/signing-key.js";
import { EXIT_OK } from "../../exit.js";

/** Registers `registry keygen`. */
export function registerKeygen(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("keygen")
    .description("generate the registry's Ed25519 signing key into KEYFILE (mode 0600, never overwritten); prints the verifier key NAME+HASH+KEY")
    .requiredOption("--out <keyfile>", "the key file to create")
    .option("--origin <name>", "the origin (key name) of the registry's checkpoints, e.g. example.com/registry", DEFAULT_ORIGIN)
    .action((opts: { out: string; origin: string }) => {
      const key = generateSigningKey(opts.out, opts.origin);
      process.stdout.write(`${key.verifierKey}\n`);
      setExit(EXIT_OK);
    });
}
