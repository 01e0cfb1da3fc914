/**
 * Atomic creation of a database directory. The directory is built complete in a hidden sibling
 * `.<name>.creating-<pid>-<random>` (same parent, so the same file system) and renamed into
 * place in one `rename(2)`: another process sees no directory (or the empty one it replaces)
 * or the complete one, never a half-made one. A creator killed before the rename leaves only the
 * hidden sibling, which the next creation of the same directory removes (its process is gone).
 *
 * Usable by any store: `createDirectoryAtomically(dir, build)` with a `build` that writes the
 * complete initial state into the directory it is given and closes its files.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { RegistryError } from "../errors.js";

const MARK = ".creating-";

function prefixOf(dir: string): string {
  return `.${basename(dir)}${MARK}`;
}

function pidOf(entry: string, prefix: string): number | undefined {
  const rest = entry.slice(prefix.length);
  const m = /^([0-9]+)-/.exec(rest);
  return m ? Number(m[1]) : undefined;
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function siblings(dir: string): string[] {
  try {
    return readdirSync(dirname(dir)).filter((e) => e.startsWith(prefixOf(dir)));
  } catch {
    return [];
  }
}

/** The process id of a live creation of `dir` in progress, or undefined. */
export function creationInProgress(dir: string): number | undefined {
  const prefix = prefixOf(dir);
  for (const e of siblings(dir)) {
    const pid = pidOf(e, prefix);
    if (pid !== undefined && pid !== process.pid && alive(pid)) return pid;
  }
  return undefined;
}

/** Removes the hidden build directories of `dir` left by creators that no longer run. Returns how many. */
export function removeStaleCreations(dir: string): number {
  const prefix = prefixOf(dir);
  let removed = 0;
  for (const e of siblings(dir)) {
    const pid = pidOf(e, prefix);
    if (pid === undefined || alive(pid)) continue;
    rmSync(join(dirname(dir), e), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some file systems refuse fsync on directories; the rename itself is still atomic
  }
}

/**
 * Creates `dir` atomically: `build(tmp)` writes the complete directory content into a fresh
 * hidden sibling, which is then renamed to `dir`. `dir` must be absent or an empty directory
 * (an empty directory is replaced); missing parent directories are created.
 * @returns true when this call created `dir`; false when another process created it first
 * (its content is then left as that process made it).
 * @throws RegistryError `DB_CORRUPT` when the parent directory cannot be written; whatever
 * `build` throws (the hidden directory is removed then).
 */
export function createDirectoryAtomically(dir: string, build: (tmp: string) => void): boolean {
  const parent = dirname(dir);
  removeStaleCreations(dir);
  let tmp: string;
  try {
    mkdirSync(parent, { recursive: true });
    tmp = mkdtempSync(join(parent, `${prefixOf(dir)}${process.pid}-`));
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `cannot create the registry database at ${dir}: ${(e as Error).message}`, {
      dir,
    });
  }
  try {
    build(tmp);
    fsyncDir(tmp);
    try {
      renameSync(tmp, dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code === "ENOTEMPTY" || code === "EEXIST") && isDirectory(dir)) return false;
      throw new RegistryError(
        "DB_CORRUPT",
        `cannot move the new registry database into place at ${dir}: ${(e as Error).message}`,
        { dir },
      );
    }
    fsyncDir(parent);
    return true;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
