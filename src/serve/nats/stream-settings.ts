/**
 * The JetStream stream and consumer settings of `ssgkr nats setup` (docs/scale-out.md): their
 * defaults and option names, apart from the setup itself so that the CLI can name them without
 * loading the NATS client.
 */
/** Stream and consumer settings. Times in ms. */
export interface StreamSettings {
  /** Stream replicas (1, or 3 on a three-node cluster; at most 5). */
  readonly replicas: number;
  /** How long a delivered job may stay unacked before it is redelivered. */
  readonly ackWaitMs: number;
  /** Jobs not taken within this are dropped by the broker. */
  readonly jobsMaxAgeMs: number;
  readonly jobsMaxBytes: number;
  /** Results are kept this long (a frontend can resume within it). */
  readonly resultsMaxAgeMs: number;
  readonly resultsMaxBytes: number;
  /** Window in which a re-published `run_id/job_id` is dropped (≤ both max ages). */
  readonly duplicateWindowMs: number;
  /** Jobs delivered and not yet acked, per kind, over all workers. */
  readonly maxAckPending: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = Object.freeze({
  replicas: 1,
  ackWaitMs: 30_000,
  jobsMaxAgeMs: 3_600_000,
  jobsMaxBytes: 1024 ** 3,
  resultsMaxAgeMs: 3_600_000,
  resultsMaxBytes: 4 * 1024 ** 3,
  duplicateWindowMs: 600_000,
  maxAckPending: 20_000,
});

/** The setting names as `ssgkr nats setup` options. */
export const STREAM_OPTION_NAMES = {
  replicas: "replicas",
  ackWaitMs: "ack-wait-ms",
  jobsMaxAgeMs: "jobs-max-age-ms",
  jobsMaxBytes: "jobs-max-bytes",
  resultsMaxAgeMs: "results-max-age-ms",
  resultsMaxBytes: "results-max-bytes",
  duplicateWindowMs: "duplicate-window-ms",
  maxAckPending: "max-ack-pending",
} as const satisfies Record<keyof StreamSettings, string>;
