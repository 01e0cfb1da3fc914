/**
 * The implementation of `ssgkr registry keygen` and `checkpoint`: the definitions (options, help)
 * are in registry-checkpoint.ts, which imports this file only when the command runs.
 */
import { openRegistry } from "../../registry/store/open-any.js";
import { generateSigningKey, readSigningKey, signCheckpoint } from "../../registry/checkpoint/signing-key.js";
import { EXIT_OK } from "../exit.js";

/** The action of `ssgkr registry keygen`, with what commander parsed (the command's definition is in registry-checkpoint.ts). */
export async function runKeygenCommand(
  setExit: (code: number) => void,
  opts: { out: string; origin: string },
): Promise<void> {
  const key = generateSigningKey(opts.out, opts.origin);
  process.stdout.write(`${key.verifierKey}\n`);
  setExit(EXIT_OK);
}

/** The action of `ssgkr registry checkpoint`, with what commander parsed (the command's definition is in registry-checkpoint.ts). */
export async function runCheckpointCommand(
  setExit: (code: number) => void,
  opts: { db: string; signingKey: string },
): Promise<void> {
  const key = readSigningKey(opts.signingKey);
  const { store } = openRegistry(opts.db, { readOnly: true });
  try {
    const head = store.head();
    process.stdout.write(signCheckpoint(key, { size: head.batch, root: head.root }));
  } finally {
    await store.close();
  }
  setExit(EXIT_OK);
}
