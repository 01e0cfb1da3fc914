/**
 * Reading the results folder: every `*.json` file, parsed, or the reason it could not be.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isRecord } from "./json-read.js";

/** Largest results file read (bytes); larger ones are reported as errors. */
export const MAX_RESULT_BYTES = 64 * 2 ** 20;

export interface ResultFile {
  /** File name without `.json` (the benchmark name). */
  readonly name: string;
  /** File name inside the folder. */
  readonly file: string;
  /** The parsed object, when the file is a JSON object. */
  readonly data?: Record<string, unknown>;
  /** Why the file could not be used (read error, invalid JSON, not an object, too large). */
  readonly error?: string;
}

/**
 * Loads every `*.json` in `dir` (sorted by name). A missing folder gives an empty list; files that
 * cannot be read or parsed are returned with `error` set, never thrown.
 */
export function loadResults(dir: string): ResultFile[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  return files.map((file): ResultFile => {
    const name = file.slice(0, -".json".length);
    try {
      const path = join(dir, file);
      const size = statSync(path).size;
      if (size > MAX_RESULT_BYTES)
        return { name, file, error: `file is ${size} bytes, above the ${MAX_RESULT_BYTES}-byte limit` };
      const text = readFileSync(path, "utf8");
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (err) {
        return { name, file, error: `invalid JSON: ${(err as Error).message}` };
      }
      if (!isRecord(data))
        return {
          name,
          file,
          error: `expected a JSON object, got ${Array.isArray(data) ? "an array" : data === null ? "null" : typeof data}`,
        };
      return { name, file, data };
    } catch (err) {
      return { name, file, error: `cannot read: ${(err as Error).message}` };
    }
  });
}
