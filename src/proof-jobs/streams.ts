/**
 * The registry proof jobs' streams and consumers on the broker, created idempotently by `ssgkr
 * nats setup` and by the first primary or worker that finds them missing, with the settings of
 * docs/scale-out.md (`StreamSettings`):
 *
 * - `SSGKR_REGISTRY_JOBS`: work-queue retention on `ssgkr.registry.jobs.*` (a job leaves the
 *   stream once a worker acks or terminates it), discard new when full, messages of at most
 *   `MAX_REGISTRY_JOB_BYTES`, duplicate window on the job id;
 * - `SSGKR_REGISTRY_RESULTS`: limits retention on `ssgkr.registry.results.*` (one subject per
 *   primary), discard old, messages of at most one result chunk (and the server's max_payload),
 *   duplicate window on `<job id>/<chunk>`;
 * - per kind (`read`, `block`), a durable pull consumer `ssgkr-registry-<kind>` with explicit
 *   acks and `ack_wait` (workers extend it with in-progress acks while they hold a job).
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
import { BrokerError } from "../serve/nats/errors.js";
import type { SetupAction } from "../serve/nats/setup.js";
import type { StreamSettings } from "../serve/nats/stream-settings.js";
import {
  MAX_REGISTRY_JOB_BYTES,
  REGISTRY_JOBS_STREAM,
  REGISTRY_JOB_KINDS,
  REGISTRY_JOB_WILDCARD,
  REGISTRY_RESULTS_STREAM,
  REGISTRY_RESULT_WILDCARD,
  RESULT_CHUNK_BYTES,
  registryJobConsumer,
  registryJobSubject,
  type RegistryJobKind,
} from "./jobs.js";

/** Headroom for a result chunk's headers, bytes. */
const HEADER_BYTES = 1024;

function configs(s: StreamSettings, maxPayload: number): Partial<StreamConfig>[] {
  return [
    {
      name: REGISTRY_JOBS_STREAM,
      subjects: [REGISTRY_JOB_WILDCARD],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      num_replicas: s.replicas,
      max_age: nanos(s.jobsMaxAgeMs),
      max_bytes: s.jobsMaxBytes,
      max_msg_size: Math.min(MAX_REGISTRY_JOB_BYTES + HEADER_BYTES, maxPayload),
      discard: DiscardPolicy.New,
      duplicate_window: nanos(s.duplicateWindowMs),
    },
    {
      name: REGISTRY_RESULTS_STREAM,
      subjects: [REGISTRY_RESULT_WILDCARD],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: s.replicas,
      max_age: nanos(s.resultsMaxAgeMs),
      max_bytes: s.resultsMaxBytes,
      max_msg_size: Math.min(RESULT_CHUNK_BYTES + HEADER_BYTES, maxPayload),
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(s.duplicateWindowMs),
    },
  ];
}

const notFound = (err: unknown): boolean => {
  const e = err as { code?: string; api_error?: { err_code?: number }; message?: string };
  return (
    e.api_error?.err_code === 10059 ||
    e.api_error?.err_code === 10014 ||
    e.code === "404" ||
    /not found/i.test(e.message ?? "")
  );
};

const setupError = (what: string, err: unknown) =>
  new BrokerError("BROKER_SETUP", `cannot set up ${what}: ${(err as Error).message ?? String(err)}`, { what });

const KEYS = ["num_replicas", "max_age", "max_bytes", "max_msg_size", "discard", "duplicate_window"] as const;

/**
 * Creates the registry proof jobs' streams and consumers that are missing; with `apply`, updates
 * existing ones to `settings` (`ssgkr nats setup`), else keeps them as they are.
 * @returns what was done, by stream or consumer name.
 * @throws BrokerError `BROKER_SETUP`.
 */
export async function ensureRegistryStreams(
  nc: NatsConnection,
  settings: StreamSettings,
  apply = false,
): Promise<Record<string, SetupAction>> {
  let jsm: JetStreamManager;
  try {
    jsm = await nc.jetstreamManager();
  } catch (err) {
    throw setupError("JetStream (is the server started with -js?)", err);
  }
  const maxPayload = nc.info?.max_payload ?? 1024 * 1024;
  const actions: Record<string, SetupAction> = {};
  for (const cfg of configs(settings, maxPayload)) {
    const name = cfg.name!;
    try {
      let existing = null;
      try {
        existing = await jsm.streams.info(name);
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      if (existing === null) {
        try {
          await jsm.streams.add(cfg);
          actions[name] = "created";
        } catch (err) {
          await jsm.streams.info(name).catch(() => {
            throw err;
          });
          actions[name] = "kept";
        }
      } else if (!apply) actions[name] = "kept";
      else if (KEYS.every((k) => (existing.config as unknown as Record<string, unknown>)[k] === cfg[k]))
        actions[name] = "unchanged";
      else {
        await jsm.streams.update(name, { ...existing.config, ...cfg });
        actions[name] = "updated";
      }
    } catch (err) {
      throw setupError(`stream ${name}`, err);
    }
  }
  for (const kind of REGISTRY_JOB_KINDS) {
    const durable = registryJobConsumer(kind);
    const cfg = {
      durable_name: durable,
      filter_subject: registryJobSubject(kind),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(settings.ackWaitMs),
      max_deliver: -1,
      max_ack_pending: settings.maxAckPending,
    };
    try {
      let existing = null;
      try {
        existing = await jsm.consumers.info(REGISTRY_JOBS_STREAM, durable);
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      if (existing === null) {
        try {
          await jsm.consumers.add(REGISTRY_JOBS_STREAM, cfg);
          actions[durable] = "created";
        } catch (err) {
          await jsm.consumers.info(REGISTRY_JOBS_STREAM, durable).catch(() => {
            throw err;
          });
          actions[durable] = "kept";
        }
      } else if (!apply) actions[durable] = "kept";
      else if (existing.config.ack_wait === cfg.ack_wait && existing.config.max_ack_pending === cfg.max_ack_pending)
        actions[durable] = "unchanged";
      else {
        await jsm.consumers.update(REGISTRY_JOBS_STREAM, durable, {
          ack_wait: cfg.ack_wait,
          max_ack_pending: cfg.max_ack_pending,
        });
        actions[durable] = "updated";
      }
    } catch (err) {
      throw setupError(`consumer ${durable}`, err);
    }
  }
  return actions;
}

/** The ack_wait of a kind's consumer, ms. */
export async function registryAckWaitMs(nc: NatsConnection, kind: RegistryJobKind): Promise<number> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.consumers.info(REGISTRY_JOBS_STREAM, registryJobConsumer(kind));
  return Math.round((info.config.ack_wait ?? nanos(30_000)) / 1e6);
}
