/**
 * The proof server (compat-v1 §16.4): prepares the three kinds, runs the startup controls,
 * then serves Jobs over TCP (protocol 1) with one FIFO per kind, the §16.4 flush rule, one
 * compute batch at a time on a worker pool, and either an overlapped or a serial return path.
 *
 * Admission (per frame, on the event loop): decode the Job (not a Job, protocol ≠ 1 or an empty
 * run_id: stop reading that connection, no reply); apply the input rules (error reply
 * `input: …`, sent at once); refuse with `server_stopping` while stopping or
 * `server_total_queue_full` when max-queue jobs are queued; otherwise queue it (admission time =
 * `server_enqueued_unix_ns`). Admission is a single step here, so the reference's separate
 * ingress channel and its `server_ingress_queue_full` refusal do not arise.
 *
 * Return path (`ReplyReturn`, shared with the NATS worker): `overlapped` puts each finished
 * batch in a bounded return queue (at most `returnQueueBatches` batches; the scheduler does not
 * flush while it is full) and a delivery loop hashes, frames and writes the replies while the
 * next batch computes in the workers. `serial` delivers each reply (hash, frame, write, waiting
 * for the write to complete) before the next batch is flushed. A connection holding more than
 * `MAX_WRITE_BACKLOG_BYTES` unwritten makes delivery wait for it to drain (or for the stall
 * check to drop it), which bounds memory at the cost of delaying the others.
 *
 * Memory is bounded by max-queue queued jobs (each a decoded request, about 10 KB at depth
 * 24), one batch in compute, `returnQueueBatches` finished batches, one partial frame (≤ 2 MiB)
 * per connection, and the socket buffers (reading pauses above 8 MiB buffered).
 *
 * Stopping (run limit, `stop()`, SIGINT/SIGTERM in the CLI): stop accepting connections; let
 * the batch in compute finish and be delivered; refuse every queued job
 * (`server_run_limit_before_compute` at the run limit, `server_stopping` otherwise) and any
 * frame that still arrives (`server_stopping`); close connections once their replies are
 * written (or after the I/O timeout); close the pool.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import type { OpRequest } from "../../smt/operation.js";
import type { PreparedSync } from "../../sync/prepared.js";
import type { SyncPool } from "../../sync/parallel/pool.js";
import type { OpKind } from "../../statement/types.js";
import { monotonicNs, nowUnixNs } from "../protocol/clock.js";
import type { Job } from "../protocol/job.js";
import { REFUSALS, type Refusal } from "../protocol/refusals.js";
import { encodeReplyFrames, errorReply, type Reply, type ReplyOrigin } from "../protocol/reply.js";
import { PROTOCOL_VERSION, PROTOCOL_VERSION_V2 } from "../protocol/limits.js";
import { admitJob } from "./admission.js";
import { computeAggregateBatch } from "./aggregate-compute.js";
import { AggregateProver } from "./aggregate-prover.js";
import { BatchScheduler } from "./batch-scheduler.js";
import { computeBatch } from "./compute.js";
import { Connection, type CloseReason } from "./connection.js";
import type { ControlsReport } from "./controls.js";
import { startEngine } from "./engine.js";
import { ServerError } from "./errors.js";
import { serverOptions, type ServerOptions } from "./options.js";
import { ReplyReturn, type ReplyDestination } from "./return-path.js";
import { stopSummary, type StopSummaryOf } from "./stop-summary.js";

interface PendingJob {
  readonly job: Job;
  readonly request: OpRequest;
  readonly kind: OpKind;
  readonly conn: Connection;
  /** Where its reply goes: `conn`. */
  readonly dest: ReplyDestination;
  readonly receivedNs: bigint;
  readonly enqueuedNs: bigint;
  /** Monotonic ns at admission. */
  readonly admittedNs: bigint;
}

/** Counters of a running or stopped server. */
export interface ServerStats {
  readonly connections: number;
  readonly openConnections: number;
  /** Jobs admitted to the queues. */
  readonly admitted: number;
  /** Jobs flushed into compute batches. */
  readonly processed: number;
  readonly batches: number;
  /** Jobs currently queued (all kinds). */
  readonly queued: number;
  /** Replies with a proof handed to a socket. */
  readonly proofReplies: number;
  /** Error replies of failed batches (`witness: …`, `prove: …`). */
  readonly batchErrors: number;
  /** Error replies `input: …`. */
  readonly inputErrors: number;
  /** Refusals by reason. */
  readonly refusals: Readonly<Record<Refusal, number>>;
  /** Connections that stopped reading or were dropped, by reason. */
  readonly closes: Readonly<Partial<Record<CloseReason, number>>>;
  /** Replies that could not be written (connection gone). */
  readonly undelivered: number;
  /** Wall time with a batch in compute (flush → last outcome), summed over batches, ms. */
  readonly computeMs: number;
  /** Main-thread time spent delivering batch replies (hash, frame, write; waits included on the serial path), ms. */
  readonly deliveryMs: number;
}

/** What `start()` reports once the server is ready. */
export interface ReadyInfo {
  readonly host: string;
  readonly port: number;
  /** `host:port` as bound. */
  readonly listen: string;
  readonly readyUnixNs: bigint;
  readonly processId: number;
  readonly controls: ControlsReport;
  readonly prepareMs: number;
}

/** What the server reports when it has stopped. */
export type StopSummary = StopSummaryOf<ServerStats>;

/** The proof server; see the module comment. */
export class ProofServer {
  readonly options: ServerOptions;
  private readonly origin: ReplyOrigin;
  private readonly scheduler: BatchScheduler<PendingJob>;
  private readonly returns: ReplyReturn;
  private readonly destinations = new WeakMap<Connection, ReplyDestination>();
  private prepared: PreparedSync[] = [];
  private pool: SyncPool | null = null;
  /** The aggregate prover of profile v2 (null for compat-v1). */
  private aggregator: AggregateProver | null = null;
  private server: Server | null = null;
  private readonly connections = new Set<Connection>();
  private nextConnId = 1;
  private batchId = 0n;
  private runTimer: NodeJS.Timeout | null = null;
  private stallTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<StopSummary> | null = null;
  private refuseQueuedWith: Refusal = REFUSALS.stopping;
  private readyUnixNs = 0n;
  private readyCpu: NodeJS.CpuUsage | null = null;
  private readyMono = 0n;
  private resolveDone!: (s: StopSummary) => void;
  /** Resolves when the server has stopped (run limit or `stop()`). */
  readonly done: Promise<StopSummary>;
  private readonly counts = {
    connections: 0,
    admitted: 0,
    processed: 0,
    batches: 0,
    inputErrors: 0,
    undelivered: 0,
    computeMs: 0,
    refusals: {
      [REFUSALS.totalQueueFull]: 0,
      [REFUSALS.ingressQueueFull]: 0,
      [REFUSALS.stopping]: 0,
      [REFUSALS.runLimitBeforeCompute]: 0,
    } as Record<Refusal, number>,
    closes: {} as Partial<Record<CloseReason, number>>,
  };

  /** @throws ServerError `BAD_OPTION`. */
  constructor(options: Partial<ServerOptions> = {}) {
    this.options = serverOptions(options);
    this.origin = { hostId: this.options.hostId, processId: process.pid };
    this.scheduler = new BatchScheduler<PendingJob>(this.options.batchMax, BigInt(this.options.maxWaitUs) * 1000n, {
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

  /** Current counters. */
  stats(): ServerStats {
    const c = this.counts;
    const r = this.returns.counts;
    return {
      connections: c.connections,
      openConnections: this.connections.size,
      admitted: c.admitted,
      processed: c.processed,
      batches: c.batches,
      queued: this.scheduler.queues.size,
      proofReplies: r.proofReplies,
      batchErrors: r.batchErrors,
      inputErrors: c.inputErrors,
      refusals: { ...c.refusals },
      closes: { ...c.closes },
      undelivered: c.undelivered + r.undelivered,
      computeMs: c.computeMs,
      deliveryMs: r.deliveryMs,
    };
  }

  /**
   * Prepares the three kinds at the configured depth, starts the worker pool, runs the controls,
   * binds the listen address and starts serving.
   * @param onControls called with the controls report before the socket is bound.
   * @throws ServerError `CONTROLS_FAILED`, `LISTEN_FAILED`; CompileError for an unusable depth.
   */
  async start(onControls?: (report: ControlsReport) => void): Promise<ReadyInfo> {
    const o = this.options;
    let controls: ControlsReport, prepareMs: number;
    if (o.profile === "v2") {
      const started = await AggregateProver.start(o.depth, o.controlSamples);
      this.aggregator = started.prover;
      ({ controls, prepareMs } = started);
    } else {
      const engine = await startEngine(o);
      this.prepared = [...engine.prepared];
      this.pool = engine.pool;
      ({ controls, prepareMs } = engine);
    }
    onControls?.(controls);
    const server = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
    this.server = server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(o.port, o.host, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      await this.pool?.close();
      await this.aggregator?.close();
      throw new ServerError("LISTEN_FAILED", `cannot listen on ${o.host}:${o.port}: ${(err as Error).message}`, {
        host: o.host,
        port: o.port,
      });
    }
    server.on("error", () => {
      /* accept errors are per connection */
    });
    const addr = server.address() as AddressInfo;
    this.readyUnixNs = nowUnixNs();
    this.readyMono = monotonicNs();
    this.readyCpu = process.cpuUsage();
    this.runTimer = setTimeout(() => void this.stopWith("run_limit"), o.runMs);
    const timeoutNs = BigInt(o.ioTimeoutMs) * 1_000_000n;
    this.stallTimer = setInterval(
      () => {
        const now = monotonicNs();
        for (const c of this.connections) c.checkStalls(now, timeoutNs);
      },
      Math.max(10, Math.min(250, Math.floor(o.ioTimeoutMs / 4))),
    );
    const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    return {
      host: addr.address,
      port: addr.port,
      listen: `${host}:${addr.port}`,
      readyUnixNs: this.readyUnixNs,
      processId: process.pid,
      controls,
      prepareMs,
    };
  }

  /** Stops the server (see the module comment); resolves with the summary. Idempotent. */
  stop(): Promise<StopSummary> {
    return this.stopWith("stopped");
  }

  private accept(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    this.counts.connections++;
    const conn = new Connection(this.nextConnId++, socket, {
      onFrame: (c, body, receivedNs) => this.admit(c, body, receivedNs),
      onStopReading: (_c, reason) => {
        this.counts.closes[reason] = (this.counts.closes[reason] ?? 0) + 1;
      },
      onClose: (c) => {
        this.connections.delete(c);
      },
    });
    this.connections.add(conn);
  }

  private admit(conn: Connection, body: Buffer, receivedNs: bigint): void {
    const a = admitJob(
      body,
      this.options.depth,
      this.options.profile === "v2" ? PROTOCOL_VERSION_V2 : PROTOCOL_VERSION,
    );
    if (a.status === "bad_job" || a.status === "protocol_mismatch") {
      conn.stopReading(a.status, a.detail);
      return;
    }
    if (a.status === "input_error") {
      this.counts.inputErrors++;
      this.sendNow(conn, errorReply(a.job, this.origin, a.error, { server_received_unix_ns: receivedNs }));
      return;
    }
    const enqueuedNs = nowUnixNs();
    const pending: PendingJob = {
      job: a.job,
      request: a.request,
      kind: a.kind,
      conn,
      dest: this.destination(conn),
      receivedNs,
      enqueuedNs,
      admittedNs: monotonicNs(),
    };
    if (this.stopping) {
      this.refuse(pending, REFUSALS.stopping);
      return;
    }
    if (this.scheduler.queues.size >= this.options.maxQueue) {
      this.refuse(pending, REFUSALS.totalQueueFull);
      return;
    }
    conn.outstanding++;
    conn.admitted++;
    this.counts.admitted++;
    this.scheduler.push(pending);
  }

  /** Writes an error reply outside the batch path (input errors); counted as owed until written. */
  private sendNow(conn: Connection, reply: Reply): void {
    conn.outstanding++;
    void conn.send(encodeReplyFrames(reply, new Uint8Array(0))).then((ok) => {
      if (!ok) this.counts.undelivered++;
      conn.outstanding--;
      conn.maybeEnd();
    });
  }

  private refuse(p: PendingJob, reason: Refusal): void {
    this.counts.refusals[reason]++;
    this.sendNow(
      p.conn,
      errorReply(p.job, this.origin, reason, {
        server_received_unix_ns: p.receivedNs,
        server_enqueued_unix_ns: p.enqueuedNs,
        server_send_start_unix_ns: nowUnixNs(),
      }),
    );
  }

  private async runBatch(kind: number, batch: PendingJob[]): Promise<void> {
    this.batchId++;
    this.counts.batches++;
    this.counts.processed += batch.length;
    const id = this.batchId;
    const flushUnixNs = nowUnixNs();
    const flushMono = monotonicNs();
    const requests = batch.map((p) => p.request);
    const { results, times } = this.aggregator
      ? await computeAggregateBatch(
          this.aggregator,
          kind,
          requests,
          batch.map((p) => p.job.input),
          flushUnixNs,
        )
      : await computeBatch(this.pool!, this.prepared[kind]!, requests, flushUnixNs);
    this.counts.computeMs += Number(monotonicNs() - flushMono) / 1e6;
    await this.returns.hand(
      batch.map((p, i) => ({
        slot: {
          job: p.job,
          result: results[i]!,
          batchId: id,
          batchSize: batch.length,
          times,
          receivedNs: p.receivedNs,
          enqueuedNs: p.enqueuedNs,
          queueNs: flushMono - p.admittedNs,
        },
        dest: p.dest,
      })),
    );
  }

  /** The return path's view of a connection: its socket backlog, drain and writes (each reply owed until written). */
  private destination(conn: Connection): ReplyDestination {
    let dest = this.destinations.get(conn);
    if (dest) return dest;
    dest = {
      get backlog() {
        return conn.writeBacklog;
      },
      drained: () => this.whenDrained(conn),
      send: (frames) =>
        conn.send(frames).then((ok) => {
          conn.outstanding--;
          conn.maybeEnd();
          return ok;
        }),
    };
    this.destinations.set(conn, dest);
    return dest;
  }

  private whenDrained(conn: Connection): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        conn.socket.off("drain", done);
        conn.socket.off("close", done);
        resolve();
      };
      if (conn.closed) return resolve();
      conn.socket.on("drain", done);
      conn.socket.on("close", done);
    });
  }

  private stopWith(reason: "run_limit" | "stopped"): Promise<StopSummary> {
    if (this.stopping) return this.stopping;
    this.refuseQueuedWith = reason === "run_limit" ? REFUSALS.runLimitBeforeCompute : REFUSALS.stopping;
    this.stopping = this.shutdown(reason);
    void this.stopping.then((s) => this.resolveDone(s));
    return this.stopping;
  }

  private async shutdown(reason: "run_limit" | "stopped"): Promise<StopSummary> {
    // Let the caller's synchronous code finish before the state changes under it.
    await Promise.resolve();
    if (this.runTimer) clearTimeout(this.runTimer);
    const closed = this.server ? new Promise<void>((r) => this.server!.close(() => r())) : Promise.resolve();
    await this.scheduler.stop();
    const queued = this.scheduler.queues.drainAll();
    for (const p of queued) {
      p.conn.outstanding--;
      this.refuse(p, this.refuseQueuedWith);
    }
    await this.returns.handedOver();
    for (const c of this.connections) c.stopReading("server_stopping", "the server is stopping");
    // Connections close once their replies are written; stragglers after the I/O timeout.
    const deadline = Date.now() + this.options.ioTimeoutMs;
    while (this.connections.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    for (const c of this.connections) c.destroy("server_stopping", "the server stopped");
    if (this.stallTimer) clearInterval(this.stallTimer);
    await closed;
    await this.pool?.close();
    await this.aggregator?.close();
    return stopSummary(reason, this.counts, queued.length, this.stats(), {
      readyUnixNs: this.readyUnixNs,
      readyMono: this.readyMono,
      readyCpu: this.readyCpu,
    });
  }
}
