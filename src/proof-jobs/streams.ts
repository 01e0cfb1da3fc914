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
import { DiscardPolicy, RetentionPolicy, StorageType, nanos, type NatsConnection, type StreamConfig } from "nats";
import { ensureJetStream, type SetupAction } from "../serve/nats/setup.js";
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
  const report = await ensureJetStream(
    nc,
    settings,
    apply,
    (maxPayload) => configs(settings, maxPayload),
    REGISTRY_JOB_KINDS.map((kind) => ({
      stream: REGISTRY_JOBS_STREAM,
      durable: registryJobConsumer(kind),
      subject: registryJobSubject(kind),
    })),
  );
  return { ...report.actions };
}

/** The ack_wait of a kind's consumer, ms. */
export async function registryAckWaitMs(nc: NatsConnection, kind: RegistryJobKind): Promise<number> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.consumers.info(REGISTRY_JOBS_STREAM, registryJobConsumer(kind));
  return Math.round((info.config.ack_wait ?? nanos(30_000)) / 1e6);
}
