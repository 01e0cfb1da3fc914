/**
 * The on-disk cache of prepared circuits that `ssgkr registry verify` and `ssgkr verify` use, so
 * that a fresh process loads a prepared circuit (compiled circuit, §12 commitment, derived wiring)
 * instead of compiling, committing and deriving it again. It is only a speed-up: a missing,
 * damaged or stale file is prepared afresh (and rewritten), and verdicts are those of `prepare`.
 *
 * Where: `$SSGKR_CACHE_DIR`, else `$XDG_CACHE_HOME/statesync-gkr`, else
 * `~/.cache/statesync-gkr`; `SSGKR_CACHE=off` (or `0`) turns it off (nothing is read or
 * written). One file per (kind, depth, leaf bound, strategy), `prepared-<kind>-d<depth>-b<B>-s<id>.<arg>.bin`:
 *
 * | bytes | field |
 * |---|---|
 * | 0..8 | magic `SSGKR-PC` |
 * | 8..12 | file format version (u32 LE), `PREPARED_FILE_VERSION` |
 * | 12..16 | material version (u32 LE), `PREPARED_MATERIAL_VERSION` |
 * | 16..24 | material length in bytes (u64 LE) |
 * | 24..56 | code digest (SHA-256 of the modules that prepare, code-digest.ts) |
 * | 56..88 | SHA-256 of the material |
 * | 88..96 | zero |
 * | 96.. | the material (src/sync/prepared-material.ts) |
 *
 * A file is used only when every header field matches this code and the material's checksum
 * and length are right. It is written to a temporary file in the same folder, then renamed over
 * the old one, so a reader sees a whole file or none; concurrent writers each rename a whole file.
 * The folder is created with mode 0700 and files with mode 0600; a folder that another user owns,
 * or that its group or others may write, is not used (a file there could change verdicts).
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { prepare, type PreparedSync } from "../sync/prepared.js";
import { PreparedCache } from "../sync/prepared-cache.js";
import { PREPARED_MATERIAL_VERSION, preparedMaterial, readPreparedMaterial } from "../sync/prepared-material.js";
import { codeDigest } from "./code-digest.js";
import type { SyncConfig } from "../smt/config.js";
import type { OpKind } from "../statement/types.js";

/** Version of the file layout (the header of the file comment). */
export const PREPARED_FILE_VERSION = 1;

const MAGIC = "SSGKR-PC";
const HEADER_BYTES = 96;
/** A larger file is not read (a d64 update circuit's material is about 40 MB). */
const MAX_FILE_BYTES = 512 << 20;

/** Where the cache lives and whether it is on. */
export interface PreparedDiskOptions {
  /** The environment the location and `SSGKR_CACHE` are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** How a prepared circuit was obtained. */
export type PreparedSource =
  /** read from its cache file */
  | "hit"
  /** prepared, then written to the cache (`problem` tells why the file was not used) */
  | "built"
  /** prepared without the cache: turned off, or the folder is unusable (`problem`) */
  | "uncached";

/** A prepared circuit and where it came from. */
export interface PreparedFromDisk {
  readonly prepared: PreparedSync;
  readonly source: PreparedSource;
  /** The cache file (undefined when the cache is off). */
  readonly path?: string;
  /** Why a file was not read or written: absent, damaged, stale, unusable folder, failed write. */
  readonly problem?: string;
}

/**
 * The cache folder, or undefined when `SSGKR_CACHE` is `off` or `0` (case-insensitive).
 * @throws the error of `os.homedir()` when neither variable is set and there is no home folder.
 * @example
 *   preparedCacheDir({ XDG_CACHE_HOME: "/home/me/.cache" }); // "/home/me/.cache/statesync-gkr"
 */
export function preparedCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const onOff = (env["SSGKR_CACHE"] ?? "").trim().toLowerCase();
  if (onOff === "off" || onOff === "0") return undefined;
  if (env["SSGKR_CACHE_DIR"]) return env["SSGKR_CACHE_DIR"];
  if (env["XDG_CACHE_HOME"]) return join(env["XDG_CACHE_HOME"], "statesync-gkr");
  return join(homedir(), ".cache", "statesync-gkr");
}

/** The cache file name of (kind, config). */
export function preparedFileName(kind: OpKind, config: SyncConfig): string {
  return `prepared-${kind}-d${config.depth}-b${config.leafMaxFields}-s${config.strategy.id}.${config.strategy.arg}.bin`;
}

/** The code digest the cache files of this code carry (hex). */
export function preparedCodeDigest(): string {
  return codeDigest([new URL(import.meta.url)]);
}

const sha256 = (b: Uint8Array): Buffer => createHash("sha256").update(b).digest();

/** The bytes of a cache file holding `material`. */
function fileBytes(material: Uint8Array, digestHex: string): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + material.byteLength);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(8, PREPARED_FILE_VERSION, true);
  view.setUint32(12, PREPARED_MATERIAL_VERSION, true);
  view.setBigUint64(16, BigInt(material.byteLength), true);
  out.set(Buffer.from(digestHex, "hex"), 24);
  out.set(sha256(material), 56);
  out.set(material, HEADER_BYTES);
  return out;
}

/** The prepared circuit of a cache file, or why it is not usable. */
function readFile(path: string, kind: OpKind, config: SyncConfig, digestHex: string): PreparedSync | string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT"
      ? "no cache file"
      : `cannot open the cache file (${(e as Error).message})`;
  }
  let bytes: Uint8Array;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return "the cache path is not a file";
    if (st.size < HEADER_BYTES) return `the cache file has ${st.size} bytes, less than its header`;
    if (st.size > MAX_FILE_BYTES) return `the cache file has ${st.size} bytes, more than ${MAX_FILE_BYTES}`;
    bytes = new Uint8Array(new ArrayBuffer(st.size));
    let at = 0;
    while (at < bytes.byteLength) {
      const n = readSync(fd, bytes, at, bytes.byteLength - at, at);
      if (n === 0) return "the cache file ended early";
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  const view = new DataView(bytes.buffer);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) return "the cache file has no SSGKR-PC header";
  if (view.getUint32(8, true) !== PREPARED_FILE_VERSION)
    return `file format version ${view.getUint32(8, true)}, this code writes ${PREPARED_FILE_VERSION}`;
  if (view.getUint32(12, true) !== PREPARED_MATERIAL_VERSION)
    return `material version ${view.getUint32(12, true)}, this code writes ${PREPARED_MATERIAL_VERSION}`;
  if (view.getBigUint64(16, true) !== BigInt(bytes.byteLength - HEADER_BYTES))
    return `the header gives ${view.getBigUint64(16, true)} material bytes, the file holds ${bytes.byteLength - HEADER_BYTES}`;
  if (Buffer.from(bytes.subarray(24, 56)).toString("hex") !== digestHex)
    return "prepared by other code (code digest differs)";
  const material = bytes.subarray(HEADER_BYTES);
  if (!sha256(material).equals(bytes.subarray(56, 88))) return "the material's checksum is wrong";
  const prepared = readPreparedMaterial(material, kind, config);
  return "problem" in prepared ? prepared.problem : prepared;
}

/** Undefined when `dir` may hold the cache (created if absent), else why not. */
function usableDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return `${dir} is not a directory`;
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user`;
    if (process.platform !== "win32" && (st.mode & 0o022) !== 0)
      return `${dir} may be written by its group or others (mode ${(st.mode & 0o777).toString(8)})`;
    return undefined;
  } catch (e) {
    return `cannot use ${dir} (${(e as Error).message})`;
  }
}

/** Writes `bytes` to `path` through a temporary file and a rename; undefined, or why it failed. */
function writeAtomically(dir: string, path: string, bytes: Uint8Array): string | undefined {
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(tmp, bytes, { mode: 0o600, flag: "wx" });
    renameSync(tmp, path);
    return undefined;
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
    return `cannot write the cache file (${(e as Error).message})`;
  }
}

/**
 * The prepared circuit of (kind, config): from its cache file when that is whole and was written
 * by this code, else prepared (`prepare`, derived wiring) and written to the cache. Never throws
 * because of the cache: any problem with it means preparing afresh.
 * @param config the configuration as `syncConfig` returns it.
 * @throws what `prepare` throws (CompileError `UNSUPPORTED_CONFIG` …).
 * @example
 *   const { prepared, source } = loadOrPrepare("membership", syncConfig({ depth: 48 })); // source "hit" on a warm cache
 */
export function loadOrPrepare(kind: OpKind, config: SyncConfig, options: PreparedDiskOptions = {}): PreparedFromDisk {
  let dir: string | undefined;
  try {
    dir = preparedCacheDir(options.env ?? process.env);
  } catch (e) {
    // no home folder to put ~/.cache in
    return {
      prepared: prepare(kind, config),
      source: "uncached",
      problem: `no cache folder (${(e as Error).message})`,
    };
  }
  if (dir === undefined) return { prepared: prepare(kind, config), source: "uncached" };
  const path = join(dir, preparedFileName(kind, config));
  const unusable = usableDir(dir);
  if (unusable !== undefined) return { prepared: prepare(kind, config), source: "uncached", path, problem: unusable };
  const digest = preparedCodeDigest();
  const read = readFile(path, kind, config, digest);
  if (typeof read !== "string") return { prepared: read, source: "hit", path };
  const prepared = prepare(kind, config);
  const material = preparedMaterial(prepared);
  const failed =
    material === undefined
      ? "the wiring oracle is not the derived one"
      : writeAtomically(dir, path, fileBytes(material, digest));
  return { prepared, source: "built", path, problem: failed === undefined ? read : `${read}; ${failed}` };
}

/**
 * A `PreparedCache` (in memory, per process) whose misses are answered by `loadOrPrepare`: pass
 * it to `verifyRequestProof` or `verifyRecordProof` as `{ cache }`.
 * @example
 *   const v = verifyRecordProof(claim, requestText, proof, { cache: diskPreparedCache() });
 */
export function diskPreparedCache(options: PreparedDiskOptions = {}): PreparedCache {
  return new PreparedCache({ prepare: (kind, config) => loadOrPrepare(kind, config, options).prepared });
}

let processCache: PreparedCache | undefined;

/**
 * The CLI process's one `diskPreparedCache()` (`ssgkr verify`, `ssgkr registry verify`): its
 * `stats.prepares` counts the circuits this process loaded from disk or prepared.
 */
export function processDiskPreparedCache(): PreparedCache {
  return (processCache ??= diskPreparedCache());
}
