/**
 * File and argument helpers shared by the CLI commands; every failure is a `CliExit` with exit
 * code 2 and one line naming the option or field.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { SsgkrError } from "../errors.js";
import { P } from "../field/koalabear.js";
import { parseRequestText, type SyncRequest } from "../sync/request.js";
import { toOpRequest } from "../sync/request-convert.js";
import type { OpRequest } from "../smt/operation.js";
import { CliExit, EXIT_USAGE } from "./exit.js";

export function readFileOrExit(path: string, option: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new CliExit(EXIT_USAGE, `error: cannot read ${option} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function writeFileOrExit(path: string, data: Uint8Array | string, option: string): void {
  try {
    writeFileSync(path, data);
  } catch (err) {
    throw new CliExit(EXIT_USAGE, `error: cannot write ${option} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * Reads and validates a request file and converts it to a library request (exit 2 naming the
 * JSON path of the first bad field).
 */
export function readRequest(path: string): { file: SyncRequest; request: OpRequest } {
  const text = readFileOrExit(path, "--request").toString("utf8");
  try {
    const file = parseRequestText(text);
    return { file, request: toOpRequest(file) };
  } catch (err) {
    if (err instanceof SsgkrError) throw new CliExit(EXIT_USAGE, `error: ${path}: ${err.message}`);
    throw err;
  }
}

/** Parses "a,b,…" (or "[a, b, …]") as 8 canonical field elements (a digest) for the option named. */
export function parseDigestOption(value: string, option: string): Uint32Array {
  // Also accepts the bracketed form `[a, b, …]` that `ssgkr registry root` prints.
  const parts = value.trim().replace(/^\[(.*)\]$/s, "$1").split(",").map((s) => s.trim());
  if (parts.length !== 8 || !parts.every((s) => /^[0-9]{1,10}$/.test(s) && Number(s) < P)) {
    throw new CliExit(EXIT_USAGE, `error: ${option} must be 8 comma-separated canonical field elements (< ${P}), got "${value}"`);
  }
  return Uint32Array.from(parts.map(Number));
}

/** Parses a non-negative integer option within [min, max]. */
export function parseIntOption(value: string, option: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new CliExit(EXIT_USAGE, `error: ${option} must be an integer in [${min}, ${max}], got "${value}"`);
  }
  return Number(value);
}

/** Parses a u64 decimal option as a bigint. */
export function parseU64Option(value: string, option: string): bigint {
  if (!/^[0-9]{1,20}$/.test(value) || BigInt(value) >= 1n << 64n) {
    throw new CliExit(EXIT_USAGE, `error: ${option} must be a u64 decimal integer, got "${value}"`);
  }
  return BigInt(value);
}
