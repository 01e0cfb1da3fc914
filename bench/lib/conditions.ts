/** The conditions a benchmark ran under: machine, runtime, date. */
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";

export interface Conditions {
  /** CPU model name (from /proc/cpuinfo when available). */
  readonly cpu: string;
  /** Logical cores available to this process. */
  readonly cores: number;
  readonly node: string;
  readonly v8: string;
  readonly platform: string;
  /** Total memory in MiB. */
  readonly memoryMiB: number;
  /** 1-minute load average when the benchmark started (others sharing the machine). */
  readonly load1: number;
  /** ISO 8601 start time. */
  readonly date: string;
  /** `GLIBC_TUNABLES` of the process when set (huge pages change the provers' figures: docs/benchmarks.md, "Fresh memory"). */
  readonly glibcTunables?: string;
}

function cpuModel(): string {
  try {
    const text = readFileSync("/proc/cpuinfo", "utf8");
    const m = /^model name\s*:\s*(.+)$/m.exec(text);
    if (m) return m[1]!.trim();
  } catch {
    // not Linux: fall back to os.cpus()
  }
  return cpus()[0]?.model ?? "unknown";
}

export function conditions(): Conditions {
  return {
    cpu: cpuModel(),
    cores: availableParallelism(),
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform}-${process.arch}`,
    memoryMiB: Math.round(totalmem() / 2 ** 20),
    load1: Math.round(loadavg()[0]! * 100) / 100,
    date: new Date().toISOString(),
    ...(process.env["GLIBC_TUNABLES"] ? { glibcTunables: process.env["GLIBC_TUNABLES"] } : {}),
  };
}

/** One human-readable line, e.g. `# AMD EPYC, 2 cores, node v20.20.2, linux-x64, load 0.3, 2025-…`. */
export function conditionsLine(c: Conditions = conditions()): string {
  const tunables = c.glibcTunables ? `, GLIBC_TUNABLES=${c.glibcTunables}` : "";
  return `# ${c.cpu}, ${c.cores} cores, node ${c.node} (V8 ${c.v8}), ${c.platform}, ${c.memoryMiB} MiB, load ${c.load1}, ${c.date}${tunables}`;
}
