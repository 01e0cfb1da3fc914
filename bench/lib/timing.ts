/**
 * Timing helpers: repeated samples of a function, each sample long enough to be measured
 * reliably, summarised as median/min/max of the time per call.
 */

/** Summary of repeated measurements; times in ms per call. */
export interface Timing {
  /** Median time per call (ms). */
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** Calls per sample (chosen so a sample lasts at least `minSampleMs`). */
  readonly callsPerSample: number;
  /** Every sample's time per call (ms), in measurement order. */
  readonly samples: readonly number[];
}

export interface MeasureOptions {
  /** Number of samples (default 9). */
  repeats?: number;
  /** Minimum duration of one sample in ms (default 20). */
  minSampleMs?: number;
  /** Untimed calls before measuring (default 1). */
  warmup?: number;
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Runs `fn` repeatedly and summarises the time per call. */
export function measure(fn: () => unknown, options: MeasureOptions = {}): Timing {
  const repeats = options.repeats ?? 9;
  const minSampleMs = options.minSampleMs ?? 20;
  for (let i = 0; i < (options.warmup ?? 1); i++) fn();
  // Calibrate: double the calls until one batch reaches minSampleMs.
  let calls = 1;
  for (;;) {
    const t0 = nowMs();
    for (let i = 0; i < calls; i++) fn();
    const dt = nowMs() - t0;
    if (dt >= minSampleMs || calls >= 1 << 20) {
      if (dt > 0) calls = Math.max(calls, Math.ceil((calls * minSampleMs) / dt));
      break;
    }
    calls *= 2;
  }
  const samples: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = nowMs();
    for (let i = 0; i < calls; i++) fn();
    samples.push((nowMs() - t0) / calls);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, callsPerSample: calls, samples };
}

/** Rate summary: `count` items per call expressed in millions per second. */
export interface Rate {
  /** Millions of items per second at the median time. */
  readonly median: number;
  /** At the slowest sample. */
  readonly min: number;
  /** At the fastest sample. */
  readonly max: number;
}

/** Converts a timing of calls processing `count` items each to M items/s. */
export function rate(t: Timing, count: number): Rate {
  const m = (ms: number) => count / ms / 1e3;
  return { median: m(t.median), min: m(t.max), max: m(t.min) };
}
