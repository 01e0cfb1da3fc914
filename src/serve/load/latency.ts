/**
 * Latency distribution of the timed accepted offers: an HDR histogram (hdr-histogram-js,
 * microsecond values, 3 significant digits, up to 24 h) for the quantiles, plus the sorted
 * samples for the CDF of the report.
 */
import * as hdr from "hdr-histogram-js";

/** Quantiles in ms (null when there is no sample). */
export interface LatencyQuantiles {
  readonly count: number;
  readonly p50_ms: number | null;
  readonly p95_ms: number | null;
  readonly p99_ms: number | null;
  readonly max_ms: number | null;
  readonly mean_ms: number | null;
}

/** Largest latency the histogram tracks: 24 h in µs. */
const HIGHEST_US = 86_400_000_000;

export class LatencyHistogram {
  private readonly h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 32,
    useWebAssembly: false,
  });
  private readonly samplesMs: number[] = [];

  /** Records one latency in ns (clamped to [1 µs, 24 h]). */
  record(latencyNs: number): void {
    const us = Math.min(HIGHEST_US, Math.max(1, Math.round(latencyNs / 1000)));
    this.h.recordValue(us);
    this.samplesMs.push(latencyNs / 1e6);
  }

  get count(): number {
    return this.samplesMs.length;
  }

  /** p50/p95/p99/max/mean from the histogram, in ms (HDR bucket precision, 0.1%). */
  quantiles(): LatencyQuantiles {
    if (this.samplesMs.length === 0)
      return { count: 0, p50_ms: null, p95_ms: null, p99_ms: null, max_ms: null, mean_ms: null };
    const ms = (us: number): number => Math.round(us) / 1000;
    // a percentile is its bucket's highest equivalent value: never report one above the maximum
    const at = (p: number): number => ms(Math.min(this.h.getValueAtPercentile(p), this.h.maxValue));
    return {
      count: this.samplesMs.length,
      p50_ms: at(50),
      p95_ms: at(95),
      p99_ms: at(99),
      max_ms: ms(this.h.maxValue),
      mean_ms: ms(this.h.mean),
    };
  }

  /** The samples in ascending order, ms (exact, not bucketed). */
  sortedMs(): number[] {
    return [...this.samplesMs].sort((a, b) => a - b);
  }

  /** The histogram in the HdrHistogram compressed base64 form (for other HDR tools). */
  encoded(): string {
    return hdr.encodeIntoCompressedBase64(this.h);
  }
}
