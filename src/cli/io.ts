/**
 * File and argument helpers shared by the CLI commands; every failure is a `CliError` (exit 2)
 * naming the option, the file and the rule.
 */
import {
  accessSync,
  closeSync,
  constants as fsConstants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, resolve } from "node:path";
import { SsgkrError, errnoText } from "../errors.js";
import { parseRoot } from "../registry/root.js";
import { parseRequestText, type SyncRequest } from "../sync/request.js";
import { toOpRequest } from "../sync/request-convert.js";
import { MAX_REQUEST_BYTES } from "../sync/limits.js";
import type { OpRequest } from "../smt/operation.js";
import { CliError } from "./errors.js";
import { primaryBase } from "../mirror/client.js";
import { MirrorError } from "../mirror/errors.js";

/** A file that is larger than the limit of what it is read for (`size` null: not known, more than `limit`). */
export class FileTooLarge extends CliError {
  constructor(
    readonly option: string,
    readonly path: string,
    readonly size: number | null,
    readonly limit: number,
    what: string,
  ) {
    super(
      "FILE_TOO_LARGE",
      `${option} ${path} has ${size ?? `more than ${limit}`} bytes; ${what} has at most ${limit}`,
      undefined,
      { option, path, size, limit },
    );
  }
}

const CHUNK_BYTES = 1 << 16;

/**
 * Reads a whole file of at most `limit` bytes. The size is checked before reading (a regular
 * file larger than `limit` is not read at all); reading stops after limit + 1 bytes anyway (a
 * pipe, or a file that grows).
 * @param what what the limit is for, e.g. "a request file".
 * @throws CliError `CANNOT_READ` naming the option and file; `FileTooLarge` (`FILE_TOO_LARGE`).
 */
export function readFileOrExit(path: string, option: string, limit: number, what: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw new CliError("CANNOT_READ", `cannot read ${option} ${path}: ${errnoText(err)}`, undefined, { option, path });
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory())
      throw new CliError("CANNOT_READ", `cannot read ${option} ${path}: is a directory`, undefined, { option, path });
    if (st.isFile() && st.size > limit) throw new FileTooLarge(option, path, st.size, limit, what);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit + 1 - total));
      const got = readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      chunks.push(got === chunk.length ? chunk : chunk.subarray(0, got));
      total += got;
      if (total > limit) throw new FileTooLarge(option, path, null, limit, what);
    }
    return Buffer.concat(chunks, total);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError("CANNOT_READ", `cannot read ${option} ${path}: ${errnoText(err)}`, undefined, { option, path });
  } finally {
    closeSync(fd);
  }
}

/**
 * The first `n` bytes of a file (fewer if it is shorter), without reading the rest.
 * @throws CliError `CANNOT_READ` naming the option and file.
 */
export function readFileHead(path: string, option: string, n = 64): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw new CliError("CANNOT_READ", `cannot read ${option} ${path}: ${errnoText(err)}`, undefined, { option, path });
  }
  try {
    if (fstatSync(fd).isDirectory())
      throw new CliError("CANNOT_READ", `cannot read ${option} ${path}: is a directory`, undefined, { option, path });
    const head = Buffer.alloc(n);
    const got = readSync(fd, head, 0, n, 0);
    return new Uint8Array(head.subarray(0, got));
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError("CANNOT_READ", `cannot read ${option} ${path}: ${errnoText(err)}`, undefined, { option, path });
  } finally {
    closeSync(fd);
  }
}

/** @throws CliError `CANNOT_WRITE` naming the option and file. */
export function writeFileOrExit(path: string, data: Uint8Array | string, option: string): void {
  try {
    writeFileSync(path, data);
  } catch (err) {
    throw new CliError("CANNOT_WRITE", `cannot write ${option} ${path}: ${errnoText(err)}`, undefined, {
      option,
      path,
    });
  }
}

/**
 * Reads (at most `MAX_REQUEST_BYTES`) and validates a request file and converts it to a library
 * request.
 * @throws CliError `CANNOT_READ`, `FILE_TOO_LARGE`; the request error (`REQUEST_JSON`,
 *   `REQUEST_SCHEMA`) with the option and file in front of its JSON path and rule.
 */
export function readRequest(path: string, option = "--request"): { file: SyncRequest; request: OpRequest } {
  const text = readFileOrExit(path, option, MAX_REQUEST_BYTES, "a request file").toString("utf8");
  try {
    const file = parseRequestText(text);
    return { file, request: toOpRequest(file) };
  } catch (err) {
    if (err instanceof SsgkrError)
      throw CliError.naming(err, `${option} ${path}: ${err.message}`, undefined, { ...err.details, option, path });
    throw err;
  }
}

/** Parses a root option (64 hex characters, or "a,b,…" / "[a, b, …]"): `parseRoot`, whose `BAD_ROOT` names the option. */
export function parseDigestOption(value: string, option: string): Uint32Array {
  return parseRoot(value, option);
}

/** Parses a non-negative integer option within [min, max]. */
export function parseIntOption(value: string, option: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new CliError("BAD_OPTION", `${option} must be an integer in [${min}, ${max}], got "${value}"`, undefined, {
      option,
    });
  }
  return Number(value);
}

/** Parses a u64 decimal option as a bigint. */
export function parseU64Option(value: string, option: string): bigint {
  if (!/^[0-9]{1,20}$/.test(value) || BigInt(value) >= 1n << 64n) {
    throw new CliError("BAD_OPTION", `${option} must be a u64 decimal integer, got "${value}"`, undefined, { option });
  }
  return BigInt(value);
}

/**
 * A primary's URL option is an http(s) URL (`http://127.0.0.1:8080`, not `127.0.0.1:8080`): the
 * mirror's own check (`primaryBase`), refused here as an option's mistake.
 * @throws CliError `BAD_OPTION` naming the option.
 */
export function checkPrimaryUrl(value: string, option: string): void {
  try {
    primaryBase(value);
  } catch (e) {
    if (!(e instanceof MirrorError)) throw e;
    throw new CliError(
      "BAD_OPTION",
      `${option} ${value}: give the primary's http or https URL (e.g. http://127.0.0.1:8080)`,
      undefined,
      { option },
    );
  }
}

/**
 * Makes `out` a directory to write into, before any work that cannot be undone (a committed
 * update) is done: it may exist as a directory; the folders missing on its path are created one
 * by one from the nearest existing one (never a recursive create, which loops on some kernel file
 * systems). @returns the folders it created, deepest last, for `removeCreated` when the work fails.
 * @throws CliError `OUT_EXISTS` (`out`, or a folder on its path, is a file), `CANNOT_WRITE` (a
 *   folder cannot be created, with why).
 */
export function prepareOutDir(out: string, option = "--out"): string[] {
  const missing: string[] = [];
  for (let p = resolve(out); ; ) {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR")
        throw new CliError("CANNOT_WRITE", `${option} ${out}: cannot use ${p} (${errnoText(e)})`, undefined, {
          option,
          path: out,
        });
      missing.push(p);
      const parent = dirname(p);
      if (parent === p) break;
      p = parent;
      continue;
    }
    if (!st.isDirectory())
      throw new CliError(
        "OUT_EXISTS",
        p === resolve(out) ? `${option} ${out} exists and is not a directory` : `${option} ${out}: ${p} is a file`,
        undefined,
        { option, path: out },
      );
    try {
      accessSync(p, fsConstants.W_OK);
    } catch (e) {
      throw new CliError("CANNOT_WRITE", `${option} ${out}: cannot write into ${p} (${errnoText(e)})`, undefined, {
        option,
        path: out,
      });
    }
    break;
  }
  const created: string[] = [];
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (e) {
      removeCreated(created);
      throw new CliError("CANNOT_WRITE", `${option} ${out}: cannot create ${dir} (${errnoText(e)})`, undefined, {
        option,
        path: out,
      });
    }
    created.push(dir);
  }
  return created;
}

/** Removes the folders `prepareOutDir` created (when they are still empty), deepest first. */
export function removeCreated(created: readonly string[]): void {
  for (const dir of [...created].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}
