/**
 * Child process of test/sync/verify-memory.test.ts: runs the real `ssgkr` entry point with the
 * arguments it was given, then writes one JSON line to the file named by SSGKR_PEAK_OUT: exit
 * code, peak resident memory (VmHWM, KiB) and how many circuits the process-wide prepared caches
 * (the library's and the CLI's disk-backed one) prepared or loaded. Does nothing unless SSGKR_PEAK_OUT is set (the test runner may load it as a file).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { main } from "../../src/cli/main.js";
import { defaultPreparedCache } from "../../src/sync/prepared-cache.js";
import { processDiskPreparedCache } from "../../src/cli/prepared-disk.js";

const out = process.env["SSGKR_PEAK_OUT"];
if (out) {
  const code = await main(process.argv);
  const hwm = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync("/proc/self/status", "utf8"));
  writeFileSync(
    out,
    JSON.stringify({
      code,
      peakKiB: hwm ? Number(hwm[1]) : null,
      prepares: defaultPreparedCache.stats.prepares + processDiskPreparedCache().stats.prepares,
    }) + "\n",
  );
}
