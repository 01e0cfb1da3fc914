/**
 * One process at a time in a role on one registry folder: one writable `registry http` (two
 * would each run a sequencer, and a retried write under one `Idempotency-Key` could apply once on
 * each), one `registry mirror` or `registry worker` (two would apply the same batches side by
 * side). The hold is a listening socket in Linux's abstract namespace named after the role and the
 * folder's path: the kernel refuses a second one and releases it when its process ends, however it
 * ends (SIGKILL included), so a killed process leaves nothing stale behind. Elsewhere than Linux
 * nothing is held (docs/registry.md, docs/scale-out.md).
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";

/** What holds a folder: a writable server, or a mirror (a registry worker's copy included). */
export type FolderRole = "server" | "mirror";

/** A hold on a folder, released by `release` (idempotent) or by the process's end. */
export interface FolderHold {
  release(): void;
}

/** The abstract socket name of a role on a folder: its real path (or absolute path, before it exists), hashed. */
function holdName(db: string, role: FolderRole): string {
  let path: string;
  try {
    path = realpathSync(db);
  } catch {
    path = resolve(db);
  }
  return `\0ssgkr-${role}-${createHash("sha256").update(path).digest("hex").slice(0, 40)}`;
}

/**
 * Holds `db` in `role` for this process.
 * @returns the hold, or undefined when another process (or another holder in this one) has it.
 * @example const hold = await holdFolder("./registry", "server"); if (!hold) throw …; hold.release();
 */
export async function holdFolder(db: string, role: FolderRole): Promise<FolderHold | undefined> {
  if (process.platform !== "linux") return { release: () => undefined };
  const server = createServer();
  try {
    await new Promise<void>((ok, fail) => {
      server.once("error", fail);
      server.listen({ path: holdName(db, role) }, () => ok());
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE") return undefined;
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
