/**
 * One process at a time mirrors into one folder: a second `registry mirror` or `registry worker`
 * on the same `--db` would apply the same batches beside the first (each refused by the other's
 * head, one of them halting with a false verdict against an honest primary). The hold is a
 * listening socket in Linux's abstract namespace, named after the folder's path: the kernel
 * refuses a second one and releases it when its process ends, however it ends (SIGKILL
 * included), so a killed mirror leaves nothing stale behind. Elsewhere than Linux nothing is held
 * (docs/scale-out.md).
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { MirrorError } from "./errors.js";

/** A hold on a mirror's folder, released by `release` (idempotent) or by the process's end. */
export interface MirrorDbHold {
  release(): void;
}

/** The abstract socket name of a folder: its real path (or absolute path, before it exists), hashed. */
export function holdName(db: string): string {
  let path: string;
  try {
    path = realpathSync(db);
  } catch {
    path = resolve(db);
  }
  return `\0ssgkr-mirror-db-${createHash("sha256").update(path).digest("hex").slice(0, 40)}`;
}

/**
 * Holds `db` for this process.
 * @throws MirrorError `MIRROR_DB_IN_USE` when another process (or another open mirror of this
 *   one) holds it.
 * @example const hold = await holdMirrorDb("./mirror"); try { … } finally { hold.release(); }
 */
export async function holdMirrorDb(db: string): Promise<MirrorDbHold> {
  if (process.platform !== "linux") return { release: () => undefined };
  const server = createServer();
  try {
    await new Promise<void>((ok, fail) => {
      server.once("error", fail);
      server.listen({ path: holdName(db) }, () => ok());
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw new MirrorError(
        "MIRROR_DB_IN_USE",
        `--db ${db}: another process mirrors into this folder (a registry mirror or registry worker); stop it first, or give another --db`,
        { db },
      );
    throw e;
  }
  server.unref();
  let held = true;
  return {
    release: () => {
      if (held) server.close();
      held = false;
    },
  };
}
