/** Running the `ssgkr` CLI from a benchmark: a child process in a folder, its output as text. */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The CLI's entry script (this file runs from dist/bench/lib). */
export const SSGKR_BIN = join(resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", ".."), "bin", "ssgkr.js");

/**
 * A runner of `ssgkr …` in `dir`: waits for it, returns its output.
 * @throws Error naming the command and its stderr when it exits other than 0.
 */
export function ssgkrIn(dir: string): (...args: string[]) => SpawnSyncReturns<string> {
  return (...a) => {
    const r = spawnSync(process.execPath, [SSGKR_BIN, ...a], { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`ssgkr ${a.join(" ")} exited ${r.status}: ${r.stderr}`);
    return r;
  };
}
