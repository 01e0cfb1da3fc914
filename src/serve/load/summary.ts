/**
 * The run summary (summary.json): counts per outcome (all offers and timed offers), the
 * semantic guard, latency quantiles of the timed accepted offers (HDR histogram), the fraction
 * of timed offers accepted within 250/500/1000/2000 ms, the completion-window throughput
 * (including the drain) and its length, and the pending counts per second.
 */
import type { ControlsReport } from "./controls.js";
import type { LatencyQuantiles } from "./latency.js";
import type { OutcomeCounts } from "./ledger.js";
import { formatTarget } from "./connection.js";
import type { LoadOptions } from "./options.js";
import type { PendingSample, RunObservation } from "./run.js";

/** Terminal statuses (§16.5). */
export type LoadStatus = "LOAD_OBSERVATIONS_COMPLETE" | "FAIL_SEMANTIC_GUARD";

/** Latency thresholds of the `within_ms` fractions. */
export const WITHIN_MS = [250, 500, 1000, 2000] as const;

/** summary.json of a load run (compat-v1 §16.5): status, guard, counts per outcome, latencies in ms, throughput and the server's figures. */
export interface LoadSummary {
  readonly status: LoadStatus;
  readonly guard: {
    readonly tripped: boolean;
    readonly reason: string | null;
    readonly job_id: number | null;
    readonly offset_ms: number | null;
  };
  readonly run_id: string;
  readonly repeat: number;
  readonly start_unix_ns: string;
  readonly settings: Record<string, unknown>;
  readonly controls: {
    readonly status: string;
    readonly samples: number;
    readonly checks: number;
    readonly failed: readonly unknown[];
    readonly ms: number;
    readonly references: Record<string, string>;
  };
  /** Offers the schedule planned (warmup + jobs); `counts.offered` is less when the guard stopped generation. */
  readonly planned: number;
  readonly counts: OutcomeCounts & { readonly unknown_responses: number; readonly duplicate_responses: number };
  readonly timed_counts: OutcomeCounts;
  /** Every offer in exactly one exclusive outcome. */
  readonly accounting_balanced: boolean;
  readonly rejections_by_reason: Record<string, number>;
  /** Timed accepted offers (on time and late), latency from the scheduled time. */
  readonly latency_ms: LatencyQuantiles;
  /** HDR histogram of the same latencies in µs, compressed base64. */
  readonly latency_hdr_us_base64: string;
  /** Fraction of timed offers accepted within each threshold (denominator: timed offers). */
  readonly within_ms: Record<string, number | null>;
  readonly throughput: {
    /** First timed offer's scheduled offset → last timed completion, ms. */
    readonly window_ms: number | null;
    readonly window_start_ms: number | null;
    readonly window_end_ms: number | null;
    /** Timed accepted (on time + late) per second of the window. */
    readonly accepted_per_s: number | null;
    /** Timed accepted within the deadline per second of the window. */
    readonly accepted_on_time_per_s: number | null;
    /** Timed offers per second of the timed offering span. */
    readonly offered_per_s: number | null;
    /** Offering end → drain end, ms. */
    readonly drain_ms: number;
    /** Whether the drain ended with nothing pending (else drain-ms ran out). */
    readonly drained_empty: boolean;
    readonly offering_end_ms: number;
  };
  readonly generator: {
    readonly offer_lag_max_ms: number;
    readonly offer_lag_mean_ms: number;
    readonly max_verifying: number;
    readonly verify_read_pauses: number;
    readonly closed_targets: readonly { target: string; offset_ms: number; reason: string }[];
  };
  readonly server: {
    readonly batches: number;
    readonly mean_batch_size: number | null;
    readonly hosts: readonly string[];
  };
  readonly pending_per_second: readonly PendingSample[];
  readonly timings_ms: Record<string, number>;
  /** Facts of the transport (the NATS frontend's counts), when it reports any. */
  readonly transport?: Record<string, unknown>;
}

/** Facts the records add (batches, within-threshold counts), gathered while they are written. */
export interface RecordTally {
  /** Timed accepted (on time or late) with latency ≤ each threshold of WITHIN_MS. */
  readonly within: number[];
  /** (host, process, batch_id) → size. */
  readonly batches: Map<string, number>;
  readonly hosts: Set<string>;
}

export function newTally(): RecordTally {
  return { within: WITHIN_MS.map(() => 0), batches: new Map(), hosts: new Set() };
}

const ms = (ns: number): number => Math.round(ns / 1e3) / 1e3;

export function buildSummary(
  obs: RunObservation,
  options: LoadOptions,
  controls: ControlsReport,
  tally: RecordTally,
  timingsMs: Record<string, number>,
  transport?: Record<string, unknown>,
): LoadSummary {
  const l = obs.ledger;
  const guard = l.guard;
  const timed = l.timed;
  const firstTimed = obs.spec.warmupJobs < obs.planned ? options.warmupJobs : null;
  const windowStartNs = firstTimed === null ? null : Math.round((firstTimed * 1e9) / options.rate);
  const windowEndNs = l.lastTimedCompletionNs > 0 ? l.lastTimedCompletionNs : null;
  const windowNs =
    windowStartNs !== null && windowEndNs !== null && windowEndNs > windowStartNs ? windowEndNs - windowStartNs : null;
  const acceptedTimed = timed.accepted + timed.accepted_late;
  const lastTimedOffer = obs.spec.warmupJobs + timed.offered - 1;
  const offerSpanNs =
    timed.offered > 1 && windowStartNs !== null
      ? Math.round((lastTimedOffer * 1e9) / options.rate) - windowStartNs + 1e9 / options.rate
      : null;
  const within: Record<string, number | null> = {};
  WITHIN_MS.forEach((t, i) => {
    within[String(t)] = timed.offered > 0 ? tally.within[i]! / timed.offered : null;
  });
  const sizes = [...tally.batches.values()];
  return {
    status: guard ? "FAIL_SEMANTIC_GUARD" : "LOAD_OBSERVATIONS_COMPLETE",
    guard: {
      tripped: guard !== null,
      reason: guard?.reason ?? null,
      job_id: guard?.job_id ?? null,
      offset_ms: guard ? ms(guard.offset_ns) : null,
    },
    run_id: options.runId,
    repeat: options.repeat,
    start_unix_ns: obs.startUnixNs.toString(),
    settings: {
      transport: options.broker !== null ? "nats" : "tcp",
      targets: options.broker !== null ? [options.broker.nats!] : options.targets.map(formatTarget),
      ...(options.resume ? { resumed: true } : {}),
      rate: options.rate,
      jobs: options.jobs,
      warmup_jobs: options.warmupJobs,
      mixture: options.mixture.map((m) => `${m.kind}:${m.weight}`).join(","),
      corpus: options.corpus,
      depth: options.depth,
      deadline_ms: options.deadlineMs,
      verify_workers: options.verifyWorkers,
      verify_queue: options.verifyQueue,
      control_samples: options.controlSamples,
      max_pending: options.maxPending,
      sender_queue: options.senderQueue,
      deadline_poll_ms: options.deadlinePollMs,
      drain_ms: options.drainMs,
    },
    controls: {
      status: controls.status,
      samples: options.controlSamples,
      checks: controls.checks.length,
      failed: controls.checks.filter((c) => !c.pass),
      ms: Math.round(controls.ms),
      references: Object.fromEntries(controls.references),
    },
    planned: obs.planned,
    counts: { ...l.all, unknown_responses: l.unknownResponses, duplicate_responses: l.duplicateResponses },
    timed_counts: { ...timed },
    accounting_balanced: l.balanced(l.all) && l.balanced(l.timed),
    rejections_by_reason: Object.fromEntries(l.rejections),
    latency_ms: l.latency.quantiles(),
    latency_hdr_us_base64: l.latency.encoded(),
    within_ms: within,
    throughput: {
      window_ms: windowNs === null ? null : ms(windowNs),
      window_start_ms: windowStartNs === null ? null : ms(windowStartNs),
      window_end_ms: windowEndNs === null ? null : ms(windowEndNs),
      accepted_per_s: windowNs === null ? null : acceptedTimed / (windowNs / 1e9),
      accepted_on_time_per_s: windowNs === null ? null : timed.accepted / (windowNs / 1e9),
      offered_per_s: offerSpanNs === null ? null : timed.offered / (offerSpanNs / 1e9),
      drain_ms: ms(obs.drainEndNs - obs.offeringEndNs),
      drained_empty: obs.drainedEmpty,
      offering_end_ms: ms(obs.offeringEndNs),
    },
    generator: {
      offer_lag_max_ms: obs.offerLag.max_ms,
      offer_lag_mean_ms: obs.offerLag.mean_ms,
      max_verifying: obs.maxVerifying,
      verify_read_pauses: obs.verifyPauses,
      closed_targets: obs.closedTargets.map((c) => ({
        target: c.target,
        offset_ms: ms(c.offset_ns),
        reason: c.reason,
      })),
    },
    server: {
      batches: sizes.length,
      mean_batch_size: sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : null,
      hosts: [...tally.hosts],
    },
    pending_per_second: obs.samples,
    timings_ms: timingsMs,
    ...(transport !== undefined ? { transport } : {}),
  };
}
