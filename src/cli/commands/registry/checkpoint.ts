/**
 * `ssgkr registry checkpoint --db DIR --signing-key KEYFILE`: prints the signed checkpoint of the
 * registry's head (C2SP tlog-checkpoint: origin, size = the head's batch number, base64 of the
 * root's 32 bytes; then the signature line), byte for byte what `GET /v1/checkpoint` serves.
 */
import type { Command } from "commander";
import { openRegistry } from "../../../registry/store/open-any.js";
import { readSigningKey, signCheckpoint } from "../../../registry/checkpoint/signing-key.js";
import { EXIT_OK } from "../../exit.js";

/** Registers `registry checkpoint`. */
export function registerCheckpoint(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("checkpoint")
    .description("print the signed checkpoint of the registry's head (C2SP tlog-checkpoint; what GET /v1/checkpoint serves)")
    .requiredOption("--db <dir>", "registry database directory")
    .requiredOption("--signing-key <keyfile>", "the signing key file (`ssgkr registry keygen`)")
    .action(async (opts: { db: string; signingKey: string }) => {
      const key = readSigningKey(opts.signingKey);
      const { store } = openRegistry(opts.db, { readOnly: true });
      try {
        const head = store.head();
        process.stdout.write(signCheckpoint(key, { size: head.batch, root: head.root }));
      } finally {
        await store.close();
      }
      setExit(EXIT_OK);
    });
}
