/**
 * Pending block records of a name-keyed registry (docs/registry.md "Block proofs"): before
 * `prove-block` writes any file, it stores a `meta` row `pending-block:<pid>` naming the block
 * directory DIR, the batch the block is to commit, the writer's pid and a token of the writing
 * process. The block's commit transaction marks the row committed (with the head, in one LMDB
 * transaction); the writer removes the row once DIR is in place. A row left by a process that no
 * longer runs is settled by the next open of the registry: a committed block (the row marked and
 * the head at or past its batch) has its hidden folder `.DIR.block-<pid>` renamed to DIR; an
 * uncommitted one has the folder removed. Settling is idempotent, so a kill during it is
 * settled again by the next open.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { RegistryError } from "../errors.js";
import { isCount, parseMetadataJson } from "./metadata-json.js";

/** Key prefix of the pending block rows in `meta`. */
export const PENDING_BLOCK_PREFIX = "pending-block:";

/** A pending block: the block directory, the batch it commits, its writer and whether the commit happened. */
export interface PendingBlock {
  /** The block directory DIR (absolute). */
  readonly dir: string;
  /** The batch the block commits (the head's batch + 1 when it was recorded). */
  readonly batch: number;
  /** The writer's process id. */
  readonly pid: number;
  /** Random token of the writing process (a later process with the same pid is another writer). */
  readonly token: string;
  /** Set by the block's commit transaction. */
  readonly committed: boolean;
}

/** What settling a pending block did. */
export type PendingOutcome = "alive" | "renamed" | "removed" | "kept" | "none";

/** Tokens of the pending blocks this process recorded (its own rows are never settled as stale). */
const OWN_TOKENS = new Set<string>();

/** A new token for a pending block of this process. */
export function newPendingToken(): string {
  const token = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  OWN_TOKENS.add(token);
  return token;
}

/** Forgets a token of this process (its row was removed). */
export function forgetPendingToken(token: string): void {
  OWN_TOKENS.delete(token);
}

/** `meta` key of the pending block row of writer `pid`. */
export function pendingBlockKey(pid: number): Buffer {
  return Buffer.from(`${PENDING_BLOCK_PREFIX}${pid}`);
}

/** The hidden sibling `.DIR.block-<pid>` the writer `pid` fills before DIR is renamed into place. */
export function hiddenBlockDir(dir: string, pid: number): string {
  return join(dirname(dir), `.${basename(dir)}.block-${pid}`);
}

/** A pending block row's JSON. */
export function encodePendingBlock(p: PendingBlock): Buffer {
  return Buffer.from(
    JSON.stringify({ dir: p.dir, batch: p.batch, pid: p.pid, token: p.token, committed: p.committed }),
  );
}

/** Decodes a pending block row. @throws RegistryError `DB_CORRUPT` if it is malformed. */
export function decodePendingBlock(raw: Uint8Array, what: string, registryDir: string): PendingBlock {
  const o = parseMetadataJson(raw, what, registryDir);
  const { dir, batch, pid, token, committed } = o;
  if (
    typeof dir !== "string" ||
    dir === "" ||
    resolve(dir) !== dir ||
    !isCount(batch) ||
    batch < 1 ||
    !isCount(pid) ||
    pid < 1 ||
    typeof token !== "string" ||
    typeof committed !== "boolean"
  ) {
    throw new RegistryError("DB_CORRUPT", `registry at ${registryDir}: ${what} is malformed`, { row: what });
  }
  return { dir, batch, pid, token, committed };
}

/** Whether the writer of a pending block still runs (this process counts only for its own tokens). */
export function writerAlive(p: PendingBlock): boolean {
  if (p.pid === process.pid) return OWN_TOKENS.has(p.token);
  try {
    process.kill(p.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isEmptyDir(path: string): boolean {
  try {
    return statSync(path).isDirectory() && readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

/**
 * Settles the files of the pending block of a writer that no longer runs, by the registry's
 * head: committed (the row marked committed and `headBatch` ≥ its batch) → `.DIR.block-<pid>`
 * renamed to DIR (`"renamed"`; DIR is replaced only when absent or empty, else the folder is
 * kept, `"kept"`); uncommitted → the folder removed (`"removed"`). `"none"`: nothing was on disk
 * to settle. The caller removes the row afterwards.
 */
export function settlePendingBlock(p: PendingBlock, headBatch: number): PendingOutcome {
  const hidden = hiddenBlockDir(p.dir, p.pid);
  if (!existsSync(hidden)) return "none";
  if (!(p.committed && headBatch >= p.batch)) {
    rmSync(hidden, { recursive: true, force: true });
    return "removed";
  }
  if (existsSync(p.dir)) {
    if (!isEmptyDir(p.dir)) return "kept";
    rmSync(p.dir, { recursive: true });
  }
  renameSync(hidden, p.dir);
  return "renamed";
}
