/**
 * The run's output directory (compat-v1 §16.6: `--out` is a new directory; output files are
 * created new, never overwritten): records.ndjson (one line per offered job), summary.json,
 * report.html.
 */
import { createWriteStream, existsSync, mkdirSync, writeFileSync, type WriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { LoadError } from "./errors.js";

export const RECORDS_FILE = "records.ndjson";
export const SUMMARY_FILE = "summary.json";
export const REPORT_FILE = "report.html";

/**
 * Creates `dir` (its parents as needed); the directory itself must not exist.
 * @throws LoadError `OUT_EXISTS`, `OUT_WRITE`.
 */
export function createOutDir(dir: string): void {
  if (existsSync(dir))
    throw new LoadError(
      "OUT_EXISTS",
      `--out ${dir} already exists (give a new directory; outputs are never overwritten)`,
      { path: dir },
    );
  try {
    mkdirSync(dirname(dir), { recursive: true });
    mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST")
      throw new LoadError(
        "OUT_EXISTS",
        `--out ${dir} already exists (give a new directory; outputs are never overwritten)`,
        { path: dir },
      );
    throw new LoadError("OUT_WRITE", `cannot create --out ${dir}: ${code ?? (err as Error).message}`, { path: dir });
  }
}

/** Writes a new file in `dir` (fails if it exists). @throws LoadError `OUT_EXISTS`, `OUT_WRITE`. */
export function writeNewFile(dir: string, name: string, data: string): string {
  const path = join(dir, name);
  try {
    writeFileSync(path, data, { flag: "wx" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST")
      throw new LoadError("OUT_EXISTS", `${path} already exists (outputs are never overwritten)`, { path });
    throw new LoadError("OUT_WRITE", `cannot write ${path}: ${code ?? (err as Error).message}`, { path });
  }
  return path;
}

/** An NDJSON file created new, written line by line. */
export class NdjsonWriter {
  readonly path: string;
  private readonly stream: WriteStream;
  private failure: Error | null = null;
  lines = 0;

  /** @param append continue an existing file (a resumed run) instead of creating it new. */
  constructor(dir: string, name: string, append = false) {
    this.path = join(dir, name);
    this.stream = createWriteStream(this.path, { flags: append ? "a" : "wx" });
    this.stream.on("error", (err) => {
      this.failure ??= err;
    });
  }

  write(value: unknown): void {
    this.lines++;
    this.stream.write(JSON.stringify(value) + "\n");
  }

  /** Flushes and closes. @throws LoadError `OUT_WRITE` if any write failed. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.stream.end(resolve));
    if (this.failure)
      throw new LoadError("OUT_WRITE", `cannot write ${this.path}: ${this.failure.message}`, { path: this.path });
  }
}
