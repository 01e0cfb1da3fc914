/**
 * Outcome accounting of one load run (compat-v1 §16.5): every offer ends in exactly one
 * exclusive outcome; deadline events, unknown and duplicate replies are counted beside them.
 *
 * Exclusive outcomes of an offered job:
 *   accepted / accepted_late — every acceptance check passed, completed within / after its deadline;
 *   rejected — a check failed (a server error, the binding, the hash, the control reference or
 *     strict verification);
 *   transport_error — its frame could not be sent or its connection failed before its reply;
 *   generator_failure — it could not be admitted: `frontend_max_pending` (pending map full) or
 *     `frontend_sender_queue_full_or_closed` (the target's sender queue full or closed);
 *   unresolved — still pending when the drain ended.
 * Beside them: deadline events (the scanner saw a pending job past its deadline; overlaps with
 * late and unresolved), unknown replies (a job_id never submitted) and duplicate replies (a job
 * already answered). A rejection without a server error and any unknown/duplicate reply trip the
 * semantic guard.
 *
 * Times are monotonic ns offsets from the run's start.
 */
import type { OpKindName } from "../../statement/types.js";
import { LatencyHistogram } from "./latency.js";
import type { Offer } from "./schedule.js";

/** The outcome of one job of a load run (compat-v1 §16.5). */
export type Outcome =
  | "accepted"
  | "accepted_late"
  | "rejected"
  | "transport_error"
  | "generator_failure"
  | "unresolved";

/** Generator failure reasons (§16.5). */
export const FRONTEND_MAX_PENDING = "frontend_max_pending";
export const FRONTEND_SENDER_QUEUE = "frontend_sender_queue_full_or_closed";

/** Server-side facts copied from a reply into the record. */
export interface ServerFacts {
  readonly host_id: string;
  readonly process_id: number;
  readonly batch_id: number;
  readonly batch_size: number;
  readonly server_queue_ns: number;
  readonly batch_witness_ns: number;
  readonly batch_prove_ns: number;
  readonly batch_encode_ns: number;
  readonly encoded_bytes: number;
}

/** One offered job while it is pending (and, once final, its record). */
export interface PendingJob {
  readonly offer: Offer;
  submittedNs: number | null;
  replyNs: number | null;
  deadlineEvent: boolean;
  server: ServerFacts | null;
  serverError: string | null;
  verifyMs: number | null;
}

/** The per-request record (one NDJSON line per offered job). Offsets in ns from the start. */
export interface RequestRecord {
  readonly run_id: string;
  readonly repeat: number;
  readonly job_id: number;
  readonly kind: OpKindName;
  readonly fixture_id: number;
  readonly target: string;
  readonly warmup: boolean;
  readonly scheduled_offset_ns: number;
  /** Decimal string (u64). */
  readonly scheduled_unix_ns: string;
  /** Decimal string (u64). */
  readonly deadline_unix_ns: string;
  readonly outcome: Outcome;
  /** Why (rejection check, failure reason, transport error), null when accepted. */
  readonly reason: string | null;
  readonly server_error: string | null;
  readonly submitted_offset_ns: number | null;
  readonly reply_offset_ns: number | null;
  /** When the outcome was decided (ns offset). */
  readonly completion_offset_ns: number;
  /** completion − scheduled, ns, for accepted, late and rejected jobs (null otherwise). */
  readonly latency_ns: number | null;
  readonly deadline_event: boolean;
  readonly verify_ms: number | null;
  readonly server: ServerFacts | null;
}

/** Counts of one population (all offers, or the timed ones). */
export interface OutcomeCounts {
  offered: number;
  submitted: number;
  accepted: number;
  accepted_late: number;
  rejected: number;
  /** Of `rejected`: carried a server error. */
  rejected_server_error: number;
  /** Of `rejected`: failed a frontend check (trips the semantic guard). */
  rejected_check: number;
  transport_errors: number;
  generator_failures: number;
  frontend_max_pending: number;
  frontend_sender_queue_full_or_closed: number;
  deadline_events: number;
  unresolved_at_drain: number;
}

function zeroCounts(): OutcomeCounts {
  return {
    offered: 0,
    submitted: 0,
    accepted: 0,
    accepted_late: 0,
    rejected: 0,
    rejected_server_error: 0,
    rejected_check: 0,
    transport_errors: 0,
    generator_failures: 0,
    frontend_max_pending: 0,
    frontend_sender_queue_full_or_closed: 0,
    deadline_events: 0,
    unresolved_at_drain: 0,
  };
}

/** Result of matching a reply's job_id. */
export type ReplyMatch =
  | { readonly kind: "pending"; readonly job: PendingJob }
  | { readonly kind: "unknown" }
  | { readonly kind: "duplicate" };

/** Job states in the status table. */
const JobState = Object.freeze({
  NotOffered: 0,
  Pending: 1,
  Replied: 2,
  /** Final after its frame was written: another reply to it is a duplicate. */
  FinalSent: 3,
  /** Final without its frame ever being written: a reply to it is unknown. */
  FinalUnsent: 4,
} as const);
type JobState = (typeof JobState)[keyof typeof JobState];
declare namespace JobState {
  type NotOffered = typeof JobState.NotOffered;
  type Pending = typeof JobState.Pending;
  type Replied = typeof JobState.Replied;
  type FinalSent = typeof JobState.FinalSent;
  type FinalUnsent = typeof JobState.FinalUnsent;
}

export interface LedgerOptions {
  readonly runId: string;
  readonly repeat: number;
  readonly startUnixNs: bigint;
  readonly targetNames: readonly string[];
  /** Called with each final record, in completion order. */
  readonly onRecord: (record: RequestRecord) => void;
}

/** The semantic guard's first trip. */
export interface GuardTrip {
  readonly reason: string;
  readonly job_id: number | null;
  readonly offset_ns: number;
}

export class Ledger {
  readonly all: OutcomeCounts = zeroCounts();
  readonly timed: OutcomeCounts = zeroCounts();
  readonly latency = new LatencyHistogram();
  /** Rejections by reason (the check's name, or `server_error`). */
  readonly rejections = new Map<string, number>();
  unknownResponses = 0;
  duplicateResponses = 0;
  guard: GuardTrip | null = null;
  /** Offset of the last completion of any job (ns), 0 before one. */
  lastCompletionNs = 0;
  /** Offset of the last timed job's completion (accepted or rejected), 0 before one. */
  lastTimedCompletionNs = 0;
  /** Pending jobs in offer order. */
  readonly pending = new Map<number, PendingJob>();
  private states = new Uint8Array(1024);
  private readonly deadlineQueue: PendingJob[] = [];
  private deadlineHead = 0;
  private readonly options: LedgerOptions;

  constructor(options: LedgerOptions) {
    this.options = options;
  }

  private state(jobId: number): JobState {
    return jobId < this.states.length ? (this.states[jobId] as JobState) : JobState.NotOffered;
  }

  private setState(jobId: number, s: JobState): void {
    if (jobId >= this.states.length) {
      let n = this.states.length;
      while (n <= jobId) n *= 2;
      const grown = new Uint8Array(n);
      grown.set(this.states);
      this.states = grown;
    }
    this.states[jobId] = s;
  }

  private count(offer: Offer, f: (c: OutcomeCounts) => void): void {
    f(this.all);
    if (!offer.warmup) f(this.timed);
  }

  /**
   * Counts a record written before the run resumed, as when it was decided (its offer, outcome,
   * latency and deadline event); the job is final.
   */
  restore(offer: Offer, r: RequestRecord): void {
    this.count(offer, (c) => {
      c.offered++;
      if (r.submitted_offset_ns !== null) c.submitted++;
      if (r.deadline_event) c.deadline_events++;
      switch (r.outcome) {
        case "accepted":
          c.accepted++;
          break;
        case "accepted_late":
          c.accepted_late++;
          break;
        case "rejected":
          c.rejected++;
          if (r.server_error !== null) c.rejected_server_error++;
          else c.rejected_check++;
          break;
        case "transport_error":
          c.transport_errors++;
          break;
        case "generator_failure":
          c.generator_failures++;
          if (r.reason === FRONTEND_MAX_PENDING) c.frontend_max_pending++;
          else c.frontend_sender_queue_full_or_closed++;
          break;
        case "unresolved":
          c.unresolved_at_drain++;
          break;
      }
    });
    if (r.outcome === "rejected") {
      const key = r.server_error !== null ? `server_error: ${r.server_error}` : (r.reason ?? "").split(":")[0]!;
      this.rejections.set(key, (this.rejections.get(key) ?? 0) + 1);
    }
    if ((r.outcome === "accepted" || r.outcome === "accepted_late") && !offer.warmup && r.latency_ns !== null)
      this.latency.record(r.latency_ns);
    if (r.outcome === "accepted" || r.outcome === "accepted_late" || r.outcome === "rejected") {
      if (r.completion_offset_ns > this.lastCompletionNs) this.lastCompletionNs = r.completion_offset_ns;
      if (!offer.warmup && r.completion_offset_ns > this.lastTimedCompletionNs)
        this.lastTimedCompletionNs = r.completion_offset_ns;
    }
    this.setState(offer.jobId, r.submitted_offset_ns !== null ? JobState.FinalSent : JobState.FinalUnsent);
  }

  /** An offer came due. */
  offered(offer: Offer): void {
    this.count(offer, (c) => c.offered++);
  }

  /** An offer that could not be admitted (`frontend_max_pending` or `frontend_sender_queue_full_or_closed`). */
  generatorFailure(
    offer: Offer,
    reason: typeof FRONTEND_MAX_PENDING | typeof FRONTEND_SENDER_QUEUE,
    nowNs: number,
  ): void {
    this.count(offer, (c) => {
      c.generator_failures++;
      if (reason === FRONTEND_MAX_PENDING) c.frontend_max_pending++;
      else c.frontend_sender_queue_full_or_closed++;
    });
    this.setState(offer.jobId, JobState.FinalUnsent);
    this.emit(
      {
        offer,
        submittedNs: null,
        replyNs: null,
        deadlineEvent: false,
        server: null,
        serverError: null,
        verifyMs: null,
      },
      "generator_failure",
      reason,
      nowNs,
    );
  }

  /** An offer admitted to the pending map (before its frame is written). */
  admit(offer: Offer): PendingJob {
    const job: PendingJob = {
      offer,
      submittedNs: null,
      replyNs: null,
      deadlineEvent: false,
      server: null,
      serverError: null,
      verifyMs: null,
    };
    this.pending.set(offer.jobId, job);
    this.setState(offer.jobId, JobState.Pending);
    this.deadlineQueue.push(job);
    return job;
  }

  /** The job's frame was written to its connection. */
  submitted(job: PendingJob, nowNs: number): void {
    if (job.submittedNs !== null) return;
    job.submittedNs = nowNs;
    this.count(job.offer, (c) => c.submitted++);
  }

  /** Matches a reply's job_id: the pending job (now marked replied), or unknown / duplicate. */
  matchReply(jobId: number, nowNs: number): ReplyMatch {
    const s = Number.isSafeInteger(jobId) && jobId >= 0 ? this.state(jobId) : JobState.NotOffered;
    if (s === JobState.Pending) {
      const job = this.pending.get(jobId)!;
      job.replyNs = nowNs;
      this.setState(jobId, JobState.Replied);
      return { kind: "pending", job };
    }
    if (s === JobState.Replied || s === JobState.FinalSent) {
      this.duplicateResponses++;
      this.trip(`duplicate response for job ${jobId}`, jobId, nowNs);
      return { kind: "duplicate" };
    }
    this.unknownResponses++;
    this.trip(`unknown response for job ${String(jobId)}`, Number.isSafeInteger(jobId) ? jobId : null, nowNs);
    return { kind: "unknown" };
  }

  /** Whether the job is still pending (not final). */
  isPending(job: PendingJob): boolean {
    const s = this.state(job.offer.jobId);
    return s === JobState.Pending || s === JobState.Replied;
  }

  /** The job passed every acceptance check at `nowNs`. */
  accept(job: PendingJob, nowNs: number): void {
    if (!this.isPending(job)) return;
    const latency = nowNs - job.offer.offsetNs;
    const late = nowNs > job.offer.deadlineOffsetNs;
    this.count(job.offer, (c) => (late ? c.accepted_late++ : c.accepted++));
    if (!job.offer.warmup) this.latency.record(latency);
    this.complete(job, nowNs);
    this.emit(job, late ? "accepted_late" : "accepted", null, nowNs);
  }

  /**
   * The job failed an acceptance check (`reason` names it). Without a server error this trips
   * the semantic guard.
   */
  reject(job: PendingJob, reason: string, nowNs: number): void {
    if (!this.isPending(job)) return;
    const serverError = job.serverError !== null;
    this.count(job.offer, (c) => {
      c.rejected++;
      if (serverError) c.rejected_server_error++;
      else c.rejected_check++;
    });
    const key = serverError ? `server_error: ${job.serverError}` : reason.split(":")[0]!;
    this.rejections.set(key, (this.rejections.get(key) ?? 0) + 1);
    if (!serverError)
      this.trip(`job ${job.offer.jobId} rejected without a server error: ${reason}`, job.offer.jobId, nowNs);
    this.complete(job, nowNs);
    this.emit(job, "rejected", serverError ? `server_error: ${job.serverError}` : reason, nowNs);
  }

  /** Sending the job's frame or receiving its reply failed. */
  transportError(job: PendingJob, reason: string, nowNs: number): void {
    if (!this.isPending(job)) return;
    this.count(job.offer, (c) => c.transport_errors++);
    this.finish(job);
    this.emit(job, "transport_error", reason, nowNs);
  }

  /** Marks pending jobs whose deadline passed by `nowNs` (each once); returns how many were new. */
  scanDeadlines(nowNs: number): number {
    let n = 0;
    while (this.deadlineHead < this.deadlineQueue.length) {
      const job = this.deadlineQueue[this.deadlineHead]!;
      if (job.offer.deadlineOffsetNs >= nowNs) break;
      this.deadlineHead++;
      if (this.isPending(job) && !job.deadlineEvent) {
        job.deadlineEvent = true;
        this.count(job.offer, (c) => c.deadline_events++);
        n++;
      }
    }
    if (this.deadlineHead > 4096 && this.deadlineHead * 2 > this.deadlineQueue.length) {
      this.deadlineQueue.splice(0, this.deadlineHead);
      this.deadlineHead = 0;
    }
    return n;
  }

  /** Ends the drain: every job still pending is `unresolved`. Returns how many. */
  drainEnded(nowNs: number): number {
    const left = [...this.pending.values()];
    for (const job of left) {
      this.count(job.offer, (c) => c.unresolved_at_drain++);
      this.finish(job);
      this.emit(job, "unresolved", "pending when the drain ended", nowNs);
    }
    return left.length;
  }

  /** Trips the semantic guard (the first trip is kept). */
  trip(reason: string, jobId: number | null, nowNs: number): void {
    if (this.guard === null) this.guard = { reason, job_id: jobId, offset_ns: nowNs };
  }

  /** Exclusive outcomes add up to the offers (true unless an offer is still pending). */
  balanced(c: OutcomeCounts = this.all): boolean {
    return (
      c.offered ===
      c.accepted +
        c.accepted_late +
        c.rejected +
        c.transport_errors +
        c.generator_failures +
        c.unresolved_at_drain +
        this.pendingOf(c)
    );
  }

  private pendingOf(c: OutcomeCounts): number {
    if (c === this.all) return this.pending.size;
    let n = 0;
    for (const j of this.pending.values()) if (!j.offer.warmup) n++;
    return n;
  }

  private complete(job: PendingJob, nowNs: number): void {
    if (nowNs > this.lastCompletionNs) this.lastCompletionNs = nowNs;
    if (!job.offer.warmup && nowNs > this.lastTimedCompletionNs) this.lastTimedCompletionNs = nowNs;
    this.finish(job);
  }

  private finish(job: PendingJob): void {
    this.pending.delete(job.offer.jobId);
    this.setState(job.offer.jobId, job.submittedNs !== null ? JobState.FinalSent : JobState.FinalUnsent);
  }

  private emit(job: PendingJob, outcome: Outcome, reason: string | null, completionNs: number): void {
    const answered = outcome === "accepted" || outcome === "accepted_late" || outcome === "rejected";
    const o = job.offer;
    const scheduledUnix = this.options.startUnixNs + BigInt(o.offsetNs);
    this.options.onRecord({
      run_id: this.options.runId,
      repeat: this.options.repeat,
      job_id: o.jobId,
      kind: o.kind,
      fixture_id: o.fixtureId,
      target: this.options.targetNames[o.target] ?? String(o.target),
      warmup: o.warmup,
      scheduled_offset_ns: o.offsetNs,
      scheduled_unix_ns: scheduledUnix.toString(),
      deadline_unix_ns: (this.options.startUnixNs + BigInt(o.deadlineOffsetNs)).toString(),
      outcome,
      reason,
      server_error: job.serverError,
      submitted_offset_ns: job.submittedNs,
      reply_offset_ns: job.replyNs,
      completion_offset_ns: completionNs,
      latency_ns: answered ? completionNs - o.offsetNs : null,
      deadline_event: job.deadlineEvent,
      verify_ms: job.verifyMs,
      server: job.server,
    });
  }
}
