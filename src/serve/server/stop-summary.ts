/**
 * The summary a proof server (server.ts) or a NATS worker (../nats/worker.ts) reports when it has
 * stopped: what it processed, what it gave back, and its CPU and wall time since it was ready.
 */
import { monotonicNs, nowUnixNs } from "../protocol/clock.js";

/** What a stopped server or worker reports; `S` is its statistics. */
export interface StopSummaryOf<S> {
  readonly reason: "run_limit" | "stopped";
  readonly processedJobs: number;
  /** Queued jobs not processed at stop (refused by the server, handed back to the broker by a worker). */
  readonly unprocessedJobs: number;
  readonly batches: number;
  readonly stats: S;
  readonly readyUnixNs: bigint;
  readonly finishUnixNs: bigint;
  /** Process CPU time (all threads) from ready to stop, seconds. */
  readonly cpuSeconds: number;
  /** Wall time from ready to stop, seconds. */
  readonly wallSeconds: number;
}

/** When a server or worker became ready: wall clock, monotonic clock and process CPU usage. */
export interface ReadyMark {
  readonly readyUnixNs: bigint;
  readonly readyMono: bigint;
  /** null when it never became ready (the CPU time is then 0). */
  readonly readyCpu: NodeJS.CpuUsage | null;
}

/**
 * The stop summary, its times measured now from `ready`.
 * @example stopSummary("stopped", { processed: 10, batches: 2 }, 0, stats, ready)
 */
export function stopSummary<S>(
  reason: "run_limit" | "stopped",
  counts: { readonly processed: number; readonly batches: number },
  unprocessedJobs: number,
  stats: S,
  ready: ReadyMark,
): StopSummaryOf<S> {
  const cpu = ready.readyCpu ? process.cpuUsage(ready.readyCpu) : { user: 0, system: 0 };
  return {
    reason,
    processedJobs: counts.processed,
    unprocessedJobs,
    batches: counts.batches,
    stats,
    readyUnixNs: ready.readyUnixNs,
    finishUnixNs: nowUnixNs(),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    wallSeconds: Number(monotonicNs() - ready.readyMono) / 1e9,
  };
}
