/**
 * The two streams and the three job consumers, created idempotently (`ssgkr nats setup`, and
 * implicitly by the first worker or frontend that finds them missing):
 *
 * - `SSGKR_JOBS`: work-queue retention on `ssgkr.jobs.*` (a job leaves the stream once a worker
 *   acks it), discard new when full (a publisher is refused rather than queued jobs dropped),
 *   duplicate window on `run_id/job_id` so a re-published job is stored once;
 * - `SSGKR_RESULTS`: limits retention on `ssgkr.results.*` (one subject per run), discard old,
 *   duplicate window on `run_id/job_id` so a re-published result (a worker killed between its
 *   publish and its ack, a redelivered job proved twice) is stored once;
 * - per kind, a durable pull consumer `ssgkr-<kind>` filtered on its subject, explicit acks,
 *   `ack_wait` (workers extend it with in-progress acks while they hold a job), unlimited
 *   deliveries (workers answer a job delivered too often with an error reply instead).
 *
 * Both streams bound message size (at most the server's max_payload), age and bytes.
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  nanos,
  type JetStreamManager,
  type NatsConnection,
  type StreamConfig,
} from "nats";
import { MAX_JOB_BYTES, MAX_PROOF_BYTES, MAX_REPLY_JSON_BYTES } from "../protocol/limits.js";
import { BrokerError } from "./errors.js";
import { DEFAULT_STREAM_SETTINGS, STREAM_OPTION_NAMES, type StreamSettings } from "./stream-settings.js";
import {
  JOBS_STREAM,
  JOB_SUBJECTS_WILDCARD,
  NATS_KINDS,
  RESULTS_STREAM,
  RESULT_SUBJECTS_WILDCARD,
  jobConsumer,
  jobSubject,
} from "./names.js";

export { DEFAULT_STREAM_SETTINGS, STREAM_OPTION_NAMES, type StreamSettings } from "./stream-settings.js";

const RANGES: Record<keyof StreamSettings, [number, number]> = {
  replicas: [1, 5],
  ackWaitMs: [100, 86_400_000],
  jobsMaxAgeMs: [1000, 365 * 86_400_000],
  jobsMaxBytes: [1024 * 1024, 2 ** 50],
  resultsMaxAgeMs: [1000, 365 * 86_400_000],
  resultsMaxBytes: [1024 * 1024, 2 ** 50],
  duplicateWindowMs: [100, 365 * 86_400_000],
  maxAckPending: [1, 1 << 24],
};

/**
 * Completes and checks settings.
 * @throws BrokerError `BAD_OPTION` naming the option.
 */
export function streamSettings(partial: Partial<StreamSettings> = {}): StreamSettings {
  const s = {
    ...DEFAULT_STREAM_SETTINGS,
    ...Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)),
  } as StreamSettings;
  for (const [k, [min, max]] of Object.entries(RANGES) as [keyof StreamSettings, [number, number]][]) {
    const v = s[k];
    if (!Number.isSafeInteger(v) || v < min || v > max) {
      throw new BrokerError(
        "BAD_OPTION",
        `--${STREAM_OPTION_NAMES[k]} must be an integer in [${min}, ${max}], got ${String(v)}`,
        { option: `--${STREAM_OPTION_NAMES[k]}` },
      );
    }
  }
  if (s.duplicateWindowMs > s.jobsMaxAgeMs || s.duplicateWindowMs > s.resultsMaxAgeMs) {
    throw new BrokerError(
      "BAD_OPTION",
      "--duplicate-window-ms must not exceed --jobs-max-age-ms or --results-max-age-ms",
      { option: "--duplicate-window-ms" },
    );
  }
  return Object.freeze(s);
}

/** Largest result message: Reply JSON frame + proof frame. */
const RESULT_BOUND = 8 + MAX_REPLY_JSON_BYTES + MAX_PROOF_BYTES;

function streamConfigs(s: StreamSettings, maxPayload: number): Partial<StreamConfig>[] {
  return [
    {
      name: JOBS_STREAM,
      subjects: [JOB_SUBJECTS_WILDCARD],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      num_replicas: s.replicas,
      max_age: nanos(s.jobsMaxAgeMs),
      max_bytes: s.jobsMaxBytes,
      max_msg_size: Math.min(MAX_JOB_BYTES, maxPayload),
      discard: DiscardPolicy.New,
      duplicate_window: nanos(s.duplicateWindowMs),
    },
    {
      name: RESULTS_STREAM,
      subjects: [RESULT_SUBJECTS_WILDCARD],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: s.replicas,
      max_age: nanos(s.resultsMaxAgeMs),
      max_bytes: s.resultsMaxBytes,
      max_msg_size: Math.min(RESULT_BOUND, maxPayload),
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(s.duplicateWindowMs),
    },
  ];
}

/** What `ensureStreams` did, per stream or consumer name. */
export type SetupAction = "created" | "updated" | "unchanged" | "kept";

export interface SetupReport {
  readonly actions: Readonly<Record<string, SetupAction>>;
  /** The server's max_payload, bytes (bounds every message). */
  readonly maxPayload: number;
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: string; api_error?: { err_code?: number }; message?: string };
  return (
    e.api_error?.err_code === 10059 ||
    e.api_error?.err_code === 10014 ||
    e.code === "404" ||
    /not found/i.test(e.message ?? "")
  );
}

function setupError(what: string, err: unknown): BrokerError {
  const e = err as { message?: string };
  return new BrokerError("BROKER_SETUP", `cannot set up ${what}: ${e.message ?? String(err)}`, { what });
}

const KEYS = ["num_replicas", "max_age", "max_bytes", "max_msg_size", "discard", "duplicate_window"] as const;

/** A durable work-queue consumer to have: its stream, name and subject. */
export interface WantedConsumer {
  readonly stream: string;
  readonly durable: string;
  readonly subject: string;
}

/**
 * Creates the given streams and consumers where missing. With `apply`, existing ones are updated
 * to `settings` (what `ssgkr nats setup` does); without it they are kept as they are (what workers
 * and frontends do, so that a process never overrides the operator's settings). Consumers are
 * explicit-ack, deliver-all, unbounded redelivery, with the settings' ack wait and pending bound.
 * @param streams the streams' configurations for the server's max_payload.
 * @throws BrokerError `BROKER_SETUP`.
 */
export async function ensureJetStream(
  nc: NatsConnection,
  settings: StreamSettings,
  apply: boolean,
  streams: (maxPayload: number) => Partial<StreamConfig>[],
  consumers: readonly WantedConsumer[],
): Promise<SetupReport> {
  let jsm: JetStreamManager;
  try {
    jsm = await nc.jetstreamManager();
  } catch (err) {
    throw setupError("JetStream (is the server started with -js?)", err);
  }
  const maxPayload = nc.info?.max_payload ?? 1024 * 1024;
  const actions: Record<string, SetupAction> = {};
  for (const cfg of streams(maxPayload)) {
    const name = cfg.name!;
    try {
      const existing = await jsm.streams.info(name).catch((err: unknown) => {
        if (isNotFound(err)) return null;
        throw err;
      });
      if (existing === null)
        actions[name] = await jsm.streams.add(cfg).then(
          () => "created" as const,
          // another process created it in between
          (err: unknown) =>
            jsm.streams.info(name).then(
              () => "kept" as const,
              () => Promise.reject(err),
            ),
        );
      else if (!apply) actions[name] = "kept";
      else if (
        KEYS.every(
          (k) => (existing.config as unknown as Record<string, unknown>)[k] === (cfg as Record<string, unknown>)[k],
        )
      )
        actions[name] = "unchanged";
      else {
        await jsm.streams.update(name, { ...existing.config, ...cfg });
        actions[name] = "updated";
      }
    } catch (err) {
      throw setupError(`stream ${name}`, err);
    }
  }
  for (const { stream, durable, subject } of consumers) {
    const cfg = {
      durable_name: durable,
      filter_subject: subject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(settings.ackWaitMs),
      max_deliver: -1,
      max_ack_pending: settings.maxAckPending,
    };
    try {
      const existing = await jsm.consumers.info(stream, durable).catch((err: unknown) => {
        if (isNotFound(err)) return null;
        throw err;
      });
      if (existing === null)
        actions[durable] = await jsm.consumers.add(stream, cfg).then(
          () => "created" as const,
          (err: unknown) =>
            jsm.consumers.info(stream, durable).then(
              () => "kept" as const,
              () => Promise.reject(err),
            ),
        );
      else if (!apply) actions[durable] = "kept";
      else if (existing.config.ack_wait === cfg.ack_wait && existing.config.max_ack_pending === cfg.max_ack_pending)
        actions[durable] = "unchanged";
      else {
        await jsm.consumers.update(stream, durable, {
          ack_wait: cfg.ack_wait,
          max_ack_pending: cfg.max_ack_pending,
        });
        actions[durable] = "updated";
      }
    } catch (err) {
      throw setupError(`consumer ${durable}`, err);
    }
  }
  return { actions, maxPayload };
}

/**
 * Creates the proof server's streams and consumers that are missing; with `apply`, updates
 * existing ones to `settings` (`ensureJetStream`).
 * @throws BrokerError `BROKER_SETUP`.
 */
export function ensureStreams(nc: NatsConnection, settings: StreamSettings, apply = false): Promise<SetupReport> {
  return ensureJetStream(
    nc,
    settings,
    apply,
    (maxPayload) => streamConfigs(settings, maxPayload),
    NATS_KINDS.map((kind) => ({ stream: JOBS_STREAM, durable: jobConsumer(kind), subject: jobSubject(kind) })),
  );
}

/** The ack_wait of a kind's consumer, ms (what a worker sizes its in-progress acks to). */
export async function consumerAckWaitMs(nc: NatsConnection, kind: (typeof NATS_KINDS)[number]): Promise<number> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.consumers.info(JOBS_STREAM, jobConsumer(kind));
  return Math.round((info.config.ack_wait ?? nanos(DEFAULT_STREAM_SETTINGS.ackWaitMs)) / 1e6);
}
