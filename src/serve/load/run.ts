/**
 * One open-loop run (compat-v1 §16.5) over connected targets: offers on the schedule whatever
 * the replies, the pending map and sender queues with their recorded overflows, reply matching
 * by job_id, verification in the worker pool, the deadline scanner, the drain, and the pending
 * counts sampled every second.
 *
 * Time is measured on the monotonic clock in ns from the run's start; every offer's latency is
 * taken from its scheduled time, so a late timer or a busy event loop shows up as latency, not
 * as less load.
 */
import type { PreparedSync } from "../../sync/prepared.js";
import type { OpKindName } from "../../statement/types.js";
import { encodeJobFrame } from "../protocol/job.js";
import { PROTOCOL_VERSION, PROTOCOL_VERSION_V2 } from "../protocol/limits.js";
import { AggregateChecker } from "./aggregate-checker.js";
import type { Reply } from "../protocol/reply.js";
import type { ReplyMessage } from "../protocol/streams.js";
import { checkReply } from "./checker.js";
import type { ControlReferences } from "./controls.js";
import type { FixtureStore } from "./fixtures.js";
import {
  FRONTEND_MAX_PENDING,
  FRONTEND_SENDER_QUEUE,
  Ledger,
  type PendingJob,
  type RequestRecord,
  type ServerFacts,
} from "./ledger.js";
import type { LoadOptions } from "./options.js";
import { offerAt, offerCount, offerOffsetNs, type ScheduleSpec } from "./schedule.js";
import type { VerifyPool } from "./verify-pool.js";

/** A connection as the run sees it. */
export interface RunConnection {
  readonly name: string;
  readonly queued: number;
  readonly closed: boolean;
  /** Queues a job's frame (`kind` picks the subject on a broker); false if refused. */
  enqueue(tag: number, frame: Buffer, kind: OpKindName): boolean;
  pause(): void;
  resume(): void;
  close(reason: string): void;
}

/** Callbacks of the connection to one target. */
export interface RunEvents {
  /** The job's frame reached the server (socket) or the broker (stored). */
  readonly onWritten: (tag: number) => void;
  readonly onReply: (m: ReplyMessage) => void;
  /** The connection closed; jobs of it without a reply fail. */
  readonly onClosed: (reason: string, unsent: readonly number[]) => void;
  /** One job could not be sent (a broker refused or timed out its publish). */
  readonly onSendFailed: (tag: number, reason: string) => void;
}

/** A run resumed from its output directory: its start and the records already final. */
export interface ResumeState {
  readonly startUnixNs: bigint;
  readonly records: readonly RequestRecord[];
}

/** One sample of the run's state (taken every second, at the start and at the end). */
export interface PendingSample {
  /** Seconds since the start. */
  readonly t_s: number;
  /** Jobs in the pending map (admitted, not final). */
  readonly pending: number;
  /** Of them: submitted, no reply yet. */
  readonly awaiting_reply: number;
  /** Replies in verification. */
  readonly verifying: number;
  /** Frames waiting in the sender queues. */
  readonly sender_queued: number;
  readonly offered: number;
  /** accepted + accepted_late so far (all offers). */
  readonly accepted: number;
}

/** What a finished run observed (input of the summary). */
export interface RunObservation {
  readonly ledger: Ledger;
  readonly spec: ScheduleSpec;
  readonly planned: number;
  readonly samples: readonly PendingSample[];
  /** Offset at which offering ended (last offer or guard), ns. */
  readonly offeringEndNs: number;
  /** Offset at which the drain ended, ns. */
  readonly drainEndNs: number;
  /** Whether the drain ended because nothing was pending (else drain-ms ran out). */
  readonly drainedEmpty: boolean;
  /** Offer timer lag (issue time − due time): max and mean, ms. */
  readonly offerLag: { readonly max_ms: number; readonly mean_ms: number };
  /** Connections that closed during the run, with why. */
  readonly closedTargets: readonly { readonly target: string; readonly offset_ns: number; readonly reason: string }[];
  readonly startUnixNs: bigint;
  /** Largest number of replies in verification at once. */
  readonly maxVerifying: number;
  /** Times reading replies was paused because verify-queue replies were in verification. */
  readonly verifyPauses: number;
}

export interface RunContext {
  readonly options: LoadOptions;
  readonly pool: VerifyPool;
  readonly prepared: ReadonlyMap<OpKindName, PreparedSync>;
  readonly fixtures: FixtureStore;
  readonly controls: ControlReferences;
  /** Each final record. */
  readonly onRecord: (record: RequestRecord) => void;
  /** Progress lines. */
  readonly log?: (line: string) => void;
  /** Continue a run whose first records are final (same run id, same schedule). */
  readonly resume?: ResumeState;
  /** Targets of the run (default: one per `options.targets`). */
  readonly targetCount?: number;
}

function num(v: bigint): number {
  return Number(v);
}

function serverFacts(r: Reply): ServerFacts {
  return {
    host_id: r.host_id,
    process_id: r.process_id,
    batch_id: num(r.batch_id),
    batch_size: r.batch_size,
    server_queue_ns: num(r.server_queue_ns),
    batch_witness_ns: num(r.batch_witness_ns),
    batch_prove_ns: num(r.batch_prove_ns),
    batch_encode_ns: num(r.batch_encode_ns),
    encoded_bytes: r.encoded_bytes,
  };
}

/**
 * Drives one run. Build it, connect the targets with `events(i)` as their callbacks, then
 * `execute(connections)`.
 */
export class OpenLoopRun {
  readonly spec: ScheduleSpec;
  readonly planned: number;
  private ledger!: Ledger;
  private connections: RunConnection[] = [];
  private t0 = 0n;
  private startUnixNs = 0n;
  private next = 0;
  private stopped = false;
  private draining = false;
  private finished = false;
  private verifying = 0;
  private maxVerifying = 0;
  private verifyPauses = 0;
  private paused = false;
  private offeringEndNs = 0;
  private drainEndNs = 0;
  private drainedEmpty = false;
  private lagMaxNs = 0;
  private lagSumNs = 0;
  private readonly samples: PendingSample[] = [];
  private readonly closedTargets: { target: string; offset_ns: number; reason: string }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private drainTimer: NodeJS.Timeout | null = null;
  private scanner: NodeJS.Timeout | null = null;
  private sampler: NodeJS.Timeout | null = null;
  private resolveDone: (() => void) | null = null;
  /** Protocol 2 replies' checks (profile v2), else null. */
  private readonly aggregates: AggregateChecker | null;

  constructor(private readonly ctx: RunContext) {
    const o = ctx.options;
    this.aggregates = o.profile === "v2" ? new AggregateChecker(ctx.pool, o.depth) : null;
    this.spec = {
      rate: o.rate,
      jobs: o.jobs,
      warmupJobs: o.warmupJobs,
      mixture: o.kinds,
      corpus: o.corpus,
      targets: ctx.targetCount ?? o.targets.length,
      deadlineMs: o.deadlineMs,
    };
    this.planned = offerCount(this.spec);
    for (const r of ctx.resume?.records ?? []) this.restored.add(r.job_id);
  }

  /** Job ids already final when the run resumed. */
  readonly restored = new Set<number>();

  /** Callbacks for the connection to target `index`. */
  events(index: number): RunEvents {
    return {
      onWritten: (tag) => this.onWritten(tag),
      onReply: (m) => this.onReply(m),
      onClosed: (reason) => this.onClosed(index, reason),
      onSendFailed: (tag, reason) => {
        const job = this.ledger?.pending.get(tag);
        if (job) this.ledger.transportError(job, reason, this.now());
        this.afterEvent();
      },
    };
  }

  private now(): number {
    return Number(process.hrtime.bigint() - this.t0);
  }

  /** Runs the schedule, the drain, and returns what was observed. */
  execute(connections: readonly RunConnection[], startUnixNs: () => bigint): Promise<RunObservation> {
    this.connections = [...connections];
    const resume = this.ctx.resume;
    if (resume) {
      this.startUnixNs = resume.startUnixNs;
      this.t0 = process.hrtime.bigint() - (startUnixNs() - resume.startUnixNs);
    } else {
      this.t0 = process.hrtime.bigint();
      this.startUnixNs = startUnixNs();
    }
    const o = this.ctx.options;
    this.ledger = new Ledger({
      runId: o.runId,
      repeat: o.repeat,
      startUnixNs: this.startUnixNs,
      targetNames: this.connections.map((c) => c.name),
      onRecord: this.ctx.onRecord,
    });
    for (const r of resume?.records ?? []) this.ledger.restore(offerAt(this.spec, r.job_id), r);
    for (const c of this.connections) {
      if (c.closed) this.closedTargets.push({ target: c.name, offset_ns: 0, reason: "closed before the start" });
    }
    const done = new Promise<void>((resolve) => {
      this.resolveDone = resolve;
    });
    this.sample();
    this.scanner = setInterval(() => this.ledger.scanDeadlines(this.now()), o.deadlinePollMs);
    this.sampler = setInterval(() => this.sample(), 1000);
    this.tick();
    // a transport may hold replies until the run has offered what is due (a resumed run's replays)
    for (const c of this.connections) c.resume();
    return done.then(() => ({
      ledger: this.ledger,
      spec: this.spec,
      planned: this.planned,
      samples: this.samples,
      offeringEndNs: this.offeringEndNs,
      drainEndNs: this.drainEndNs,
      drainedEmpty: this.drainedEmpty,
      offerLag: { max_ms: this.lagMaxNs / 1e6, mean_ms: this.next > 0 ? this.lagSumNs / this.next / 1e6 : 0 },
      closedTargets: this.closedTargets,
      startUnixNs: this.startUnixNs,
      maxVerifying: this.maxVerifying,
      verifyPauses: this.verifyPauses,
    }));
  }

  private tick(): void {
    this.timer = null;
    if (this.stopped) return;
    const now = this.now();
    const rate = this.spec.rate;
    while (this.next < this.planned) {
      if (this.restored.has(this.next)) {
        this.next++;
        continue;
      }
      const due = offerOffsetNs(this.next, rate);
      if (due > now) break;
      const lag = now - due;
      this.lagSumNs += lag;
      if (lag > this.lagMaxNs) this.lagMaxNs = lag;
      this.offer(this.next++);
      if (this.ledger.guard !== null) break;
    }
    if (this.ledger.guard !== null || this.next >= this.planned) {
      this.stopOffering();
      return;
    }
    while (this.restored.has(this.next)) this.next++;
    if (this.next >= this.planned) {
      this.stopOffering();
      return;
    }
    const waitMs = (offerOffsetNs(this.next, rate) - this.now()) / 1e6;
    this.timer = setTimeout(() => this.tick(), Math.max(0, waitMs));
  }

  private offer(i: number): void {
    const offer = offerAt(this.spec, i);
    const o = this.ctx.options;
    this.ledger.offered(offer);
    const now = this.now();
    if (this.ledger.pending.size >= o.maxPending) {
      this.ledger.generatorFailure(offer, FRONTEND_MAX_PENDING, now);
      return;
    }
    const conn = this.connections[offer.target]!;
    if (conn.closed || conn.queued >= o.senderQueue) {
      this.ledger.generatorFailure(offer, FRONTEND_SENDER_QUEUE, now);
      return;
    }
    const fixture = this.ctx.fixtures.get(offer.kind, offer.fixtureId);
    const frame = encodeJobFrame({
      protocol: o.profile === "v2" ? PROTOCOL_VERSION_V2 : PROTOCOL_VERSION,
      run_id: o.runId,
      job_id: BigInt(i),
      fixture_id: offer.fixtureId,
      repeat: o.repeat,
      warmup: offer.warmup,
      scheduled_unix_ns: this.startUnixNs + BigInt(offer.offsetNs),
      deadline_unix_ns: this.startUnixNs + BigInt(offer.deadlineOffsetNs),
      input: fixture.input,
    });
    const job = this.ledger.admit(offer);
    if (!conn.enqueue(i, frame, offer.kind))
      this.ledger.transportError(job, "transport: the sender queue refused the frame", this.now());
  }

  private onWritten(tag: number): void {
    const job = this.ledger.pending.get(tag);
    if (job) this.ledger.submitted(job, this.now());
  }

  private onReply(message: ReplyMessage): void {
    if (this.finished) return;
    const { reply, proof } = message;
    const id = reply.job_id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(reply.job_id) : -1;
    const match = this.ledger.matchReply(id, this.now());
    if (match.kind !== "pending") {
      this.afterEvent();
      return;
    }
    const job = match.job;
    job.server = serverFacts(reply);
    if (reply.error !== null) job.serverError = reply.error;
    const fixture = this.ctx.fixtures.get(job.offer.kind, job.offer.fixtureId);
    this.verifying++;
    if (this.verifying > this.maxVerifying) this.maxVerifying = this.verifying;
    this.backpressure();
    const offered = { kind: job.offer.kind, fixtureId: job.offer.fixtureId, request: fixture.request };
    const checked = this.aggregates
      ? this.aggregates.check(reply, proof, offered, this.ctx.options.runId)
      : checkReply(
          this.ctx.pool,
          this.ctx.prepared.get(job.offer.kind)!,
          reply,
          proof,
          offered,
          this.ctx.options.runId,
          this.ctx.controls,
        );
    void checked.then((v) => {
      this.verifying--;
      const t = this.now();
      job.verifyMs = v.verifyMs;
      if (v.ok) this.ledger.accept(job, t);
      else this.ledger.reject(job, v.reason, t);
      this.backpressure();
      this.afterEvent();
    });
  }

  private onClosed(index: number, reason: string): void {
    if (this.t0 === 0n) return;
    const now = this.now();
    const name = this.connections[index]?.name ?? String(index);
    if (this.finished) return;
    this.closedTargets.push({ target: name, offset_ns: now, reason });
    this.ctx.log?.(`connection to ${name} closed at ${(now / 1e9).toFixed(3)} s: ${reason}`);
    const lost: PendingJob[] = [];
    for (const job of this.ledger.pending.values())
      if (job.offer.target === index && job.replyNs === null) lost.push(job);
    for (const job of lost) this.ledger.transportError(job, `transport: ${reason}`, now);
    this.afterEvent();
  }

  private backpressure(): void {
    const full = this.verifying >= this.ctx.options.verifyQueue;
    if (full && !this.paused) {
      this.paused = true;
      this.verifyPauses++;
      for (const c of this.connections) c.pause();
    } else if (!full && this.paused) {
      this.paused = false;
      for (const c of this.connections) c.resume();
    }
  }

  private afterEvent(): void {
    if (this.finished) return;
    if (this.ledger.guard !== null && !this.stopped) {
      this.ctx.log?.(`semantic guard: ${this.ledger.guard.reason}; generation stops`);
      this.stopOffering();
      return;
    }
    if (this.draining && this.ledger.pending.size === 0) this.finish(true);
  }

  private stopOffering(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.offeringEndNs = this.now();
    this.draining = true;
    if (this.ledger.pending.size === 0) {
      this.finish(true);
      return;
    }
    this.ctx.log?.(
      `offering ended at ${(this.offeringEndNs / 1e9).toFixed(3)} s; draining ${this.ledger.pending.size} pending (up to ${this.ctx.options.drainMs} ms)`,
    );
    this.drainTimer = setTimeout(() => this.finish(false), this.ctx.options.drainMs);
  }

  private finish(empty: boolean): void {
    if (this.finished) return;
    this.ledger.scanDeadlines(this.now());
    this.finished = true;
    this.drainedEmpty = empty;
    for (const t of [this.drainTimer, this.timer]) if (t) clearTimeout(t);
    for (const t of [this.scanner, this.sampler]) if (t) clearInterval(t);
    this.drainEndNs = this.now();
    this.sample();
    this.ledger.drainEnded(this.drainEndNs);
    this.resolveDone?.();
  }

  private sample(): void {
    let awaiting = 0;
    for (const j of this.ledger.pending.values()) if (j.submittedNs !== null && j.replyNs === null) awaiting++;
    let queued = 0;
    for (const c of this.connections) queued += c.queued;
    const a = this.ledger.all;
    this.samples.push({
      t_s: Math.round(this.now() / 1e6) / 1e3,
      pending: this.ledger.pending.size,
      awaiting_reply: awaiting,
      verifying: this.verifying,
      sender_queued: queued,
      offered: a.offered,
      accepted: a.accepted + a.accepted_late,
    });
  }
}
