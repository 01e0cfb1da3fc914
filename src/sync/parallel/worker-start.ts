/**
 * Starting a pool worker with the parent's Node options. By default a worker inherits them
 * (Node ignores the process-wide ones), but options that describe the parent's entry point
 * (`--input-type`, `-e`/`--eval`, `-p`/`--print`) make a worker started from a file fail. When
 * the parent has such options, the workers get the remaining ones explicitly; Node then rejects
 * process-wide options (`--max-old-space-size`, `--stack-size`, …) named in its error, and those
 * are dropped too. The result is computed once per thread.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";

/** The options without the entry-point ones and their values. */
export function withoutEntryOptions(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--input-type=")) continue;
    if (a === "--input-type" || a === "-e" || a === "--eval" || a === "-p" || a === "--print") {
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** undefined: inherit; an array: pass explicitly; null: not decided yet. */
let execArgv: string[] | undefined | null = null;

/** Starts `url` as a worker with `options` plus the parent's usable Node options. */
export function startWorker(url: URL, options: WorkerOptions): Worker {
  if (execArgv === null) {
    const kept = withoutEntryOptions(process.execArgv);
    execArgv = kept.length === process.execArgv.length ? undefined : kept;
  }
  for (;;) {
    try {
      return new Worker(url, execArgv === undefined ? options : { ...options, execArgv });
    } catch (err) {
      if (
        execArgv === undefined ||
        execArgv.length === 0 ||
        (err as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV"
      )
        throw err;
      const named = /flags: (.*)$/.exec((err as Error).message)?.[1]?.split(", ") ?? [];
      const kept: string[] = execArgv.filter((a) => !named.includes(a));
      execArgv = kept.length < execArgv.length ? kept : [];
    }
  }
}
