/**
 * A proof worker on NATS JetStream (docs/scale-out.md): the same preparation, controls, §16.4
 * batching policy and Reply as the TCP server, with jobs pulled from the shared work-queue
 * stream instead of read from sockets, so any number of workers on any number of machines
 * share the load.
 *
 * Pulling: per kind, a loop pulls from the kind's durable consumer (`js.fetch`, which returns as
 * soon as jobs arrive, or at its expiry) while the kind's local FIFO holds fewer than batch-max jobs (and all held jobs stay
 * under max-queue), so a worker never hoards more than one batch ahead per kind. Each pulled
 * job is admitted as over TCP: not a Job / wrong protocol → acked without a reply (dropped);
 * over a bound of job-bounds.ts (body size, `run_id`, `input.kind`) → terminated (`term()`)
 * with one small error reply `job_over_bound`, before any proving, on its first delivery;
 * delivered more than `maxDeliveries` times → terminated with one small error reply
 * `worker_delivery_limit` (a job that crashes workers is answered, not redelivered forever);
 * input error → error reply; otherwise queued with its receive time as admission time.
 * The two terminating replies echo no unbounded field and the job is terminated even when
 * their publish fails, so such a job ends in exactly one outcome.
 *
 * Results: the return path is the TCP server's (`ReplyReturn`): each reply (Reply JSON frame +
 * proof frame, as protocol 1) is published to the run's results subject with msgID
 * `run_id/job_id`; the job is acked only once the publish is acknowledged (a failing publish is
 * retried with the same msgID, each attempt waiting up to `PUBLISH_ATTEMPT_MS`, for up to the
 * I/O timeout, then the job is nak'ed for redelivery). `overlapped` publishes a batch's results
 * while the next batch computes (at most `returnQueueBatches` batches waiting to be published; a
 * batch leaves that queue once its results are sent, and their acknowledgements come in while
 * the next batch computes); `serial` waits for each acknowledgement. Results sent and not yet
 * acknowledged are bounded by `MAX_WRITE_BACKLOG_BYTES`. While a job is held (queued,
 * computing, publishing) the worker sends an in-progress ack every third of the consumer's
 * ack_wait, so long batches are not redelivered; a worker that dies stops doing so and its
 * jobs are redelivered after ack_wait.
 *
 * Stopping (run limit, `stop()`, SIGINT/SIGTERM): stop pulling, let the batch in compute
 * finish and its results be published and acked, nak the queued jobs so another worker takes
 * them at once, drain the connection, close the pool.
 */
import type { JetStreamClient, JsMsg, NatsConnection } from "nats";
import type { OpRequest } from "../../smt/operation.js";
import type { PreparedSync } from "../../sync/prepared.js";
import type { SyncPool } from "../../sync/parallel/pool.js";
import type { OpKind } from "../../statement/types.js";
import { monotonicNs, nowUnixNs } from "../protocol/clock.js";
import type { Job } from "../protocol/job.js";
import { encodeReplyFrames, errorReply, type Reply, type ReplyOrigin } from "../protocol/reply.js";
import { admitJob } from "../server/admission.js";
import { BatchScheduler } from "../server/batch-scheduler.js";
import { computeBatch } from "../server/compute.js";
import { computeAggregateBatch } from "../server/aggregate-compute.js";
import { AggregateProver } from "../server/aggregate-prover.js";
import { PROTOCOL_VERSION, PROTOCOL_VERSION_V2 } from "../protocol/limits.js";
import type { ControlsReport } from "../server/controls.js";
import { startEngine } from "../server/engine.js";
import { serverOptions, type ServerOptions } from "../server/options.js";
import { ReplyReturn, type ReplyDestination } from "../server/return-path.js";
import { closeBroker, connectBroker, type BrokerEndpoint } from "./connect.js";
import { OVER_BOUND_ERROR, boundedErrorReply, jobOverBound } from "./job-bounds.js";
import { BrokerError } from "./errors.js";
import { JOBS_STREAM, NATS_KINDS, jobConsumer, messageId, resultSubject } from "./names.js";
import { consumerAckWaitMs, ensureStreams, streamSettings, type StreamSettings } from "./setup.js";
import { stopSummary, type StopSummaryOf } from "../server/index.js";

/** How long past its expiry a pull may stay open before the worker gives it up and pulls again, ms. */
export const PULL_GRACE_MS = 2000;

/**
 * Longest wait for one result publish's acknowledgement before it is sent again, ms: a publish
 * lost with a broker node is retried within the I/O timeout instead of using it up.
 */
export const PUBLISH_ATTEMPT_MS = 2000;

/** Reason of the error reply to a job delivered more than `maxDeliveries` times. */
export const DELIVERY_LIMIT_ERROR = "worker_delivery_limit";

export interface NatsWorkerOptions extends ServerOptions {
  readonly endpoint: BrokerEndpoint;
  /** Settings for streams the worker creates when they are missing. */
  readonly streams: StreamSettings;
  /** Deliveries after which a job is answered with `worker_delivery_limit` (default 5). */
  readonly maxDeliveries: number;
  /**
   * Expiry of each pull request, ms (default 2000). A pull returns as soon as jobs are there, so
   * the expiry bounds only idle polling (and how long a stopping worker waits for its pulls);
   * `js.fetch` allows it down to 5 ms.
   */
  readonly pullExpiresMs: number;
}

/** Test and operator hooks. */
export interface NatsWorkerHooks {
  /** A batch was flushed (before it computes). */
  readonly onFlush?: (batchId: bigint, size: number) => void;
  /** A result's publish was acknowledged by the broker; the job is acked right after. */
  readonly onPublished?: (count: number) => void;
  /** Progress and trouble lines. */
  readonly log?: (line: string) => void;
}

interface HeldJob {
  readonly msg: JsMsg;
  readonly job: Job;
  readonly request: OpRequest;
  readonly kind: OpKind;
  readonly receivedNs: bigint;
  readonly enqueuedNs: bigint;
  readonly admittedNs: bigint;
}

/** Counters of a running or stopped worker. */
export interface NatsWorkerStats {
  /** Jobs pulled from the broker (every delivery). */
  readonly pulled: number;
  /** Of them, redeliveries. */
  readonly redelivered: number;
  readonly admitted: number;
  readonly processed: number;
  readonly batches: number;
  readonly proofReplies: number;
  readonly batchErrors: number;
  readonly inputErrors: number;
  /** Not a Job / wrong protocol: acked without a reply. */
  readonly badJobs: number;
  readonly deliveryLimit: number;
  /** Jobs over a bound of job-bounds.ts: terminated with one `job_over_bound` error reply. */
  readonly overBound: number;
  /** Results published and acknowledged. */
  readonly published: number;
  /** Results the broker reported as duplicates (already stored). */
  readonly duplicatesDropped: number;
  /** Publish attempts that failed and were retried. */
  readonly publishRetries: number;
  /** Publishes that failed for the whole I/O timeout (the job was nak'ed for redelivery). */
  readonly publishFailures: number;
  /** Queued jobs nak'ed at stop. */
  readonly nakedAtStop: number;
  readonly computeMs: number;
  readonly deliveryMs: number;
}

export interface NatsReadyInfo {
  readonly servers: readonly string[];
  readonly connectedTo: string;
  readonly readyUnixNs: bigint;
  readonly processId: number;
  readonly controls: ControlsReport;
  readonly prepareMs: number;
  readonly ackWaitMs: number;
  readonly setup: Readonly<Record<string, string>>;
}

/** What the NATS worker reports when it has stopped (unprocessed jobs: those handed back to the broker). */
export type NatsStopSummary = StopSummaryOf<NatsWorkerStats>;

/** Completes worker options. @throws ServerError / BrokerError `BAD_OPTION`. */
export function natsWorkerOptions(
  partial: Partial<NatsWorkerOptions> & { endpoint: BrokerEndpoint },
): NatsWorkerOptions {
  const base = serverOptions(partial);
  const maxDeliveries = partial.maxDeliveries ?? 5;
  const pullExpiresMs = partial.pullExpiresMs ?? 2000;
  if (!Number.isSafeInteger(maxDeliveries) || maxDeliveries < 1 || maxDeliveries > 1000)
    throw new BrokerError("BAD_OPTION", `--max-deliveries must be an integer in [1, 1000], got ${maxDeliveries}`, {
      option: "--max-deliveries",
    });
  if (!Number.isSafeInteger(pullExpiresMs) || pullExpiresMs < 5 || pullExpiresMs > 60_000)
    throw new BrokerError("BAD_OPTION", `--pull-expires-ms must be an integer in [5, 60000], got ${pullExpiresMs}`, {
      option: "--pull-expires-ms",
    });
  return Object.freeze({
    ...base,
    endpoint: partial.endpoint,
    streams: partial.streams ?? streamSettings(),
    maxDeliveries,
    pullExpiresMs,
  });
}

export class NatsWorker {
  readonly options: NatsWorkerOptions;
  private readonly origin: ReplyOrigin;
  private readonly scheduler: BatchScheduler<HeldJob>;
  private readonly returns: ReplyReturn;
  /** Bytes of results sent and not yet acknowledged. */
  private unacked = 0;
  private readonly ackWaiters: (() => void)[] = [];
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private prepared: PreparedSync[] = [];
  private pool: SyncPool | null = null;
  /** The aggregate prover with `--profile v2` (docs/serving.md "Profile v2"), else null. */
  private aggregator: AggregateProver | null = null;
  private readonly held = new Set<JsMsg>();
  private readonly pendingPublishes = new Set<Promise<void>>();
  private readonly roomWaiters: (() => void)[][] = [[], [], []];
  private pullers: Promise<void>[] = [];
  private batchId = 0n;
  private stopping: Promise<NatsStopSummary> | null = null;
  private pulling = false;
  private runTimer: NodeJS.Timeout | null = null;
  private progressTimer: NodeJS.Timeout | null = null;
  private readyUnixNs = 0n;
  private readyMono = 0n;
  private readyCpu: NodeJS.CpuUsage | null = null;
  private resolveDone!: (s: NatsStopSummary) => void;
  readonly done: Promise<NatsStopSummary>;
  private readonly counts = {
    pulled: 0,
    redelivered: 0,
    admitted: 0,
    processed: 0,
    batches: 0,
    inputErrors: 0,
    badJobs: 0,
    deliveryLimit: 0,
    overBound: 0,
    published: 0,
    duplicatesDropped: 0,
    publishRetries: 0,
    publishFailures: 0,
    nakedAtStop: 0,
    computeMs: 0,
  };

  constructor(
    options: Partial<NatsWorkerOptions> & { endpoint: BrokerEndpoint },
    private readonly hooks: NatsWorkerHooks = {},
  ) {
    this.options = natsWorkerOptions(options);
    this.origin = { hostId: this.options.hostId, processId: process.pid };
    this.scheduler = new BatchScheduler<HeldJob>(this.options.batchMax, BigInt(this.options.maxWaitUs) * 1000n, {
      run: (kind, batch) => this.runBatch(kind, batch),
      gate: () => this.returns.hasRoom,
    });
    this.returns = new ReplyReturn(this.options.returnPath, this.options.returnQueueBatches, this.origin, () =>
      this.scheduler.schedule(),
    );
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  stats(): NatsWorkerStats {
    const r = this.returns.counts;
    return { ...this.counts, proofReplies: r.proofReplies, batchErrors: r.batchErrors, deliveryMs: r.deliveryMs };
  }

  /**
   * Prepares, runs the controls, connects, creates missing streams, then starts pulling.
   * @throws ServerError `CONTROLS_FAILED`; BrokerError `BROKER_CONNECT`, `BROKER_SETUP`.
   */
  async start(onControls?: (report: ControlsReport) => void): Promise<NatsReadyInfo> {
    const o = this.options;
    const engine = o.profile === "v2" ? await AggregateProver.start(o.depth, o.controlSamples) : await startEngine(o);
    if ("prover" in engine) this.aggregator = engine.prover;
    else [this.prepared, this.pool] = [[...engine.prepared], engine.pool];
    onControls?.(engine.controls);
    let setup;
    let ackWaitMs;
    try {
      this.nc = await connectBroker(o.endpoint, `ssgkr-worker ${o.hostId}/${process.pid}`, o.ioTimeoutMs);
      setup = await ensureStreams(this.nc, o.streams, false);
      ackWaitMs = Math.min(...(await Promise.all(NATS_KINDS.map((k) => consumerAckWaitMs(this.nc!, k)))));
      this.js = this.nc.jetstream({ timeout: o.ioTimeoutMs });
    } catch (err) {
      await this.nc?.close().catch(() => undefined);
      await this.pool?.close();
      await this.aggregator?.close();
      throw err;
    }
    void this.watchStatus(this.nc);
    this.readyUnixNs = nowUnixNs();
    this.readyMono = monotonicNs();
    this.readyCpu = process.cpuUsage();
    this.runTimer = setTimeout(() => void this.stopWith("run_limit"), o.runMs);
    this.progressTimer = setInterval(
      () => {
        for (const m of this.held) m.working();
      },
      Math.max(50, Math.floor(ackWaitMs / 3)),
    );
    this.pulling = true;
    this.pullers = NATS_KINDS.map((_, k) => this.pullLoop(k));
    return {
      servers: o.endpoint.servers,
      connectedTo: this.nc.getServer(),
      readyUnixNs: this.readyUnixNs,
      processId: process.pid,
      controls: engine.controls,
      prepareMs: engine.prepareMs,
      ackWaitMs,
      setup: setup.actions,
    };
  }

  /** Stops (see the module comment); resolves with the summary. Idempotent. */
  stop(): Promise<NatsStopSummary> {
    return this.stopWith("stopped");
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect" || s.type === "error")
        this.hooks.log?.(`broker ${s.type}: ${String(s.data)}`);
    }
  }

  private room(kind: number): number {
    const q = this.scheduler.queues;
    return Math.min(this.options.batchMax - q.lengthOf(kind), this.options.maxQueue - q.size);
  }

  private async pullLoop(kind: number): Promise<void> {
    const durable = jobConsumer(NATS_KINDS[kind]!);
    while (this.pulling) {
      const room = this.room(kind);
      if (room <= 0) {
        await new Promise<void>((r) => this.roomWaiters[kind]!.push(r));
        continue;
      }
      try {
        const iter = this.js!.fetch(JOBS_STREAM, durable, { batch: room, expires: this.options.pullExpiresMs });
        // a pull whose broker node died may never end by itself: give it up and pull again
        const watchdog = setTimeout(() => iter.stop(), this.options.pullExpiresMs + PULL_GRACE_MS);
        try {
          for await (const m of iter) this.receive(m);
        } finally {
          clearTimeout(watchdog);
        }
      } catch (err) {
        if (!this.pulling) break;
        this.hooks.log?.(`pull ${durable}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  private wakePullers(): void {
    for (const w of this.roomWaiters) for (const r of w.splice(0)) r();
  }

  private receive(m: JsMsg): void {
    const receivedNs = nowUnixNs();
    this.counts.pulled++;
    if (m.info.redelivered) this.counts.redelivered++;
    if (this.stopping || !this.pulling) {
      m.nak();
      this.counts.nakedAtStop++;
      return;
    }
    const a = admitJob(
      m.data,
      this.options.depth,
      this.options.profile === "v2" ? PROTOCOL_VERSION_V2 : PROTOCOL_VERSION,
    );
    if (a.status === "bad_job" || a.status === "protocol_mismatch") {
      // acked without a reply: a work-queue stream then drops it (no frontend can match it)
      this.counts.badJobs++;
      this.hooks.log?.(`dropped a message that is not a protocol-1 Job: ${a.detail.slice(0, 200)}`);
      m.ack();
      return;
    }
    const over = jobOverBound(a.job, m.data.length);
    if (over !== null) {
      this.counts.overBound++;
      this.hooks.log?.(`terminated a job over a bound: ${over}`);
      this.answerNow(
        m,
        boundedErrorReply(a.job, this.origin, `${OVER_BOUND_ERROR}: ${over}`, { server_received_unix_ns: receivedNs }),
        a.job.run_id,
      );
      return;
    }
    if (m.info.deliveryCount > this.options.maxDeliveries) {
      this.counts.deliveryLimit++;
      this.answerNow(
        m,
        boundedErrorReply(a.job, this.origin, `${DELIVERY_LIMIT_ERROR}: delivered ${m.info.deliveryCount} times`, {
          server_received_unix_ns: receivedNs,
        }),
        a.job.run_id,
      );
      return;
    }
    if (a.status === "input_error") {
      this.counts.inputErrors++;
      this.answerNow(m, errorReply(a.job, this.origin, a.error, { server_received_unix_ns: receivedNs }));
      return;
    }
    this.counts.admitted++;
    this.held.add(m);
    this.scheduler.push({
      msg: m,
      job: a.job,
      request: a.request,
      kind: a.kind,
      receivedNs,
      enqueuedNs: nowUnixNs(),
      admittedNs: monotonicNs(),
    });
  }

  /**
   * Publishes an error reply outside a batch, then acks; with `terminateRunId` (the job's own
   * run id, which names the results subject) the job is terminated instead, published or not.
   */
  private answerNow(m: JsMsg, reply: Reply, terminateRunId?: string): void {
    this.held.add(m);
    this.track(
      this.publish(m, reply, encodeReplyFrames(reply, new Uint8Array(0)), terminateRunId).then(() => undefined),
    );
  }

  /** The return path's view of the broker for the job of `m`: its result is published, then `m` acked. */
  private destination(m: JsMsg): ReplyDestination {
    const worker = this;
    return {
      get backlog() {
        return worker.unacked;
      },
      drained: () => new Promise<void>((r) => this.ackWaiters.push(r)),
      send: (frames, reply) => this.publish(m, reply, frames),
    };
  }

  private track(p: Promise<void>): Promise<void> {
    this.pendingPublishes.add(p);
    return p.finally(() => this.pendingPublishes.delete(p));
  }

  /**
   * Publishes one result; acks the job once the broker stored it (or had it already). A failing
   * publish (a broker node lost, a stream leader being elected) is retried with the same msgID
   * for up to the I/O timeout; then the job is handed back with a delay (nak) for redelivery.
   * With `terminateRunId` the job is terminated (`term()`) once the publish succeeded or failed
   * for good, and the results subject is that run id's.
   */
  private async publish(m: JsMsg, reply: Reply, frames: readonly Buffer[], terminateRunId?: string): Promise<boolean> {
    const data = Buffer.concat(frames);
    this.unacked += data.length;
    const subject = resultSubject(terminateRunId ?? reply.run_id);
    const msgID = messageId(reply.run_id, reply.job_id);
    const until = performance.now() + this.options.ioTimeoutMs;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const ack = await this.js!.publish(subject, data, {
            msgID,
            timeout: Math.min(PUBLISH_ATTEMPT_MS, this.options.ioTimeoutMs),
          });
          if (ack.duplicate) this.counts.duplicatesDropped++;
          this.counts.published++;
          this.hooks.onPublished?.(this.counts.published);
          if (terminateRunId !== undefined) m.term();
          else m.ack();
          return true;
        } catch (err) {
          if (performance.now() >= until) {
            this.counts.publishFailures++;
            if (terminateRunId !== undefined) {
              this.hooks.log?.(`publish of ${msgID} failed: ${(err as Error).message}; job terminated`);
              m.term();
            } else {
              this.hooks.log?.(`publish of ${msgID} failed: ${(err as Error).message}; job returned for redelivery`);
              m.nak(1000);
            }
            return false;
          }
          this.counts.publishRetries++;
          await new Promise((r) => setTimeout(r, Math.min(250, 50 * 2 ** Math.min(attempt, 4))));
        }
      }
    } finally {
      this.held.delete(m);
      this.unacked -= data.length;
      for (const w of this.ackWaiters.splice(0)) w();
    }
  }

  private async runBatch(kind: number, batch: HeldJob[]): Promise<void> {
    this.wakePullers();
    this.batchId++;
    this.counts.batches++;
    this.counts.processed += batch.length;
    const id = this.batchId;
    this.hooks.onFlush?.(id, batch.length);
    const flushUnixNs = nowUnixNs();
    const flushMono = monotonicNs();
    const { results, times } = this.aggregator
      ? await computeAggregateBatch(
          this.aggregator,
          kind,
          batch.map((p) => p.request),
          batch.map((p) => p.job.input),
          flushUnixNs,
        )
      : await computeBatch(
          this.pool!,
          this.prepared[kind]!,
          batch.map((p) => p.request),
          flushUnixNs,
        );
    this.counts.computeMs += Number(monotonicNs() - flushMono) / 1e6;
    await this.returns.hand(
      batch.map((h, i) => ({
        slot: {
          job: h.job,
          result: results[i]!,
          batchId: id,
          batchSize: batch.length,
          times,
          receivedNs: h.receivedNs,
          enqueuedNs: h.enqueuedNs,
          queueNs: flushMono - h.admittedNs,
        },
        dest: this.destination(h.msg),
      })),
    );
  }

  private stopWith(reason: "run_limit" | "stopped"): Promise<NatsStopSummary> {
    if (this.stopping) return this.stopping;
    this.stopping = this.shutdown(reason);
    void this.stopping.then((s) => this.resolveDone(s));
    return this.stopping;
  }

  private async shutdown(reason: "run_limit" | "stopped"): Promise<NatsStopSummary> {
    await Promise.resolve();
    if (this.runTimer) clearTimeout(this.runTimer);
    this.pulling = false;
    this.wakePullers();
    await this.scheduler.stop();
    const queued = this.scheduler.queues.drainAll();
    for (const h of queued) {
      h.msg.nak();
      this.held.delete(h.msg);
      this.counts.nakedAtStop++;
    }
    await this.returns.settled();
    while (this.pendingPublishes.size > 0) await Promise.all([...this.pendingPublishes]);
    await Promise.all(this.pullers);
    if (this.progressTimer) clearInterval(this.progressTimer);
    await closeBroker(this.nc);
    await this.pool?.close();
    await this.aggregator?.close();
    return stopSummary(reason, this.counts, queued.length, this.stats(), {
      readyUnixNs: this.readyUnixNs,
      readyMono: this.readyMono,
      readyCpu: this.readyCpu,
    });
  }
}
