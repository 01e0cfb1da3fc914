/**
 * The load frontend's NATS transport (`ssgkr load --nats …`, docs/scale-out.md): the same
 * open-loop run, ledger, summary and report as over TCP, with one "target" — the broker.
 *
 * Offering: each job's JSON (the protocol-1 Job, without its length prefix) is published to its
 * kind's subject with msgID `run_id/job_id`; the job counts as submitted once the broker stored
 * it. A publish that fails (broker node lost, timeout) is retried with the same msgID (the
 * jobs stream stores it once) until `connect-timeout-ms` has passed, then the job is a
 * transport error. At most `sender-queue` publishes are outstanding; beyond that an offer is a
 * generator failure, as a full sender queue is over TCP.
 *
 * Results: an ordered consumer on the run's results subject, from its first message: it is
 * recreated from the last sequence seen after a reconnect or a lost broker node, so nothing
 * published meanwhile is missed, and a resumed frontend reads back every result of its run.
 * A watchdog reopens it after the last sequence read if it falls silent while the stream holds
 * newer results of the run (an ordered consumer on a lost node may not recover by itself). A
 * reopen waits out a leader election (the client retries the consumer's creation every
 * `RESULTS_EXPIRES_MS`); it is not superseded by the next stall unless it has been pending for
 * `REOPEN_GIVE_UP_MS`, since each new attempt starts its retries from scratch.
 * Results are de-duplicated by job id before they reach the ledger (a job proved twice after a
 * redelivery outside the duplicate window, or results of jobs already final before a resume).
 */
import type { ConsumerMessages, JetStreamClient, JetStreamManager, NatsConnection } from "nats";
import { ReplyStreamReader, type ReplyMessage } from "../protocol/streams.js";
import type { OpKindName } from "../../sync/types.js";
import { LoadError } from "../load/errors.js";
import type { LoadTransport } from "../load/load.js";
import type { LoadOptions } from "../load/options.js";
import type { OpenLoopRun, RunConnection, RunEvents } from "../load/run.js";
import { connectBroker, type BrokerEndpoint } from "./connect.js";
import { BrokerError } from "./errors.js";
import { JOBS_STREAM, RESULTS_STREAM, jobSubject, messageId, resultSubject } from "./names.js";
import { ensureStreams, streamSettings } from "./setup.js";

/** Counts of the NATS frontend (`summary.transport`). */
export type NatsFrontendFacts = {
  readonly transport: "nats";
  readonly servers: readonly string[];
  readonly results_subject: string;
  /** Results read from the results stream. */
  readonly results_read: number;
  /** Of them, for a job that already had one (dropped before the ledger). */
  readonly duplicate_results_dropped: number;
  /** Results of jobs final before a resume (dropped before the ledger). */
  readonly replayed_final_results: number;
  /** Result messages that are not a Reply + proof. */
  readonly unreadable_results: number;
  /** Job publishes the broker reported as duplicates (a job re-offered on resume, a retried publish). */
  readonly duplicate_job_publishes: number;
  /** Publish attempts that failed and were retried. */
  readonly publish_retries: number;
  /** Times the results consumer was reopened after it fell silent behind the stream. */
  readonly consumer_restarts: number;
  /** Broker disconnects seen. */
  readonly disconnects: number;
};

/** Period of the results consumer's progress check, ms. */
export const WATCHDOG_MS = 1500;

/**
 * Expiry of the results consumer's pulls, ms: also its idle-heartbeat period (half of it) and the
 * client's delay between attempts to (re)create the consumer, so it bounds how long a recovery
 * after a leader election waits.
 */
export const RESULTS_EXPIRES_MS = 2000;

/** A reopen of the results consumer pending this long is given up and a new one started, ms. */
export const REOPEN_GIVE_UP_MS = 20_000;

/** Longest wait for one job publish's acknowledgement before it is sent again, ms. */
export const PUBLISH_ATTEMPT_MS = 2000;

/** The run's connection to the broker. */
export class NatsTarget implements RunConnection {
  readonly name: string;
  private inflight = 0;
  private closedReason: string | null = null;
  /** Held until the run starts (it resumes every connection after its first offers). */
  private paused = true;
  private readonly held: ReplyMessage[] = [];
  private readonly seen = new Set<number>();
  private messages: ConsumerMessages | null = null;
  private reading: Promise<void> | null = null;
  private jsm: JetStreamManager | null = null;
  private generation = 0;
  private lastSeq = 0;
  private seqAtCheck = 0;
  private stalled = 0;
  private checking = false;
  /** performance.now() when the pending reopen started, or null. */
  private reopenSince: number | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  readonly counts = { results_read: 0, duplicate_results_dropped: 0, replayed_final_results: 0, unreadable_results: 0, duplicate_job_publishes: 0, publish_retries: 0, consumer_restarts: 0 };

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly runId: string,
    private readonly capacity: number,
    private readonly retryMs: number,
    private readonly events: RunEvents,
    private readonly finalBefore: ReadonlySet<number>,
    name: string,
  ) {
    this.name = name;
  }

  /** Starts reading the run's results from the first one, and the watchdog. */
  async startResults(): Promise<void> {
    this.jsm = await this.nc.jetstreamManager();
    await this.openConsumer();
    this.watchdog = setInterval(() => void this.checkProgress(), WATCHDOG_MS);
  }

  /** (Re)opens the ordered consumer after the last stream sequence read. */
  private async openConsumer(): Promise<void> {
    const generation = ++this.generation;
    this.messages?.stop();
    const from = this.lastSeq > 0 ? { opt_start_seq: this.lastSeq + 1 } : {};
    const consumer = await this.js.consumers.get(RESULTS_STREAM, { filterSubjects: resultSubject(this.runId), ...from });
    const messages = await consumer.consume({ max_messages: 256, expires: RESULTS_EXPIRES_MS });
    if (generation !== this.generation) {
      // a later reopen superseded this one while it waited for the broker
      messages.stop();
      return;
    }
    this.messages = messages;
    this.reading = (async () => {
      for await (const m of messages) {
        if (generation !== this.generation) break;
        if (m.seq > this.lastSeq) this.lastSeq = m.seq;
        this.onResult(m.data);
      }
    })().catch(() => {
      /* the watchdog reopens it */
    });
  }

  /**
   * An ordered consumer whose broker node died can stay silent: when the stream holds results of
   * the run past the last one read and none arrived over two checks, reopen it from there.
   */
  private async checkProgress(): Promise<void> {
    if (this.closedReason !== null || this.checking) return;
    this.checking = true;
    try {
      const last = await boundedWait(this.jsm!.streams.getMessage(RESULTS_STREAM, { last_by_subj: resultSubject(this.runId) }), WATCHDOG_MS).then((m) => m.seq, () => 0);
      const behind = last > this.lastSeq;
      this.stalled = behind && this.lastSeq === this.seqAtCheck ? this.stalled + 1 : 0;
      this.seqAtCheck = this.lastSeq;
      const pending = this.reopenSince !== null && performance.now() - this.reopenSince < REOPEN_GIVE_UP_MS;
      if (this.stalled >= 2 && this.closedReason === null && !pending) {
        this.stalled = 0;
        this.counts.consumer_restarts++;
        // not awaited, so that a reopen waiting for a leader does not stop the watchdog
        const since = performance.now();
        this.reopenSince = since;
        void this.openConsumer().catch(() => undefined).finally(() => {
          if (this.reopenSince === since) this.reopenSince = null;
        });
      }
    } finally {
      this.checking = false;
    }
  }

  get queued(): number {
    return this.inflight;
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  enqueue(tag: number, frame: Buffer, kind: OpKindName): boolean {
    if (this.closedReason !== null || this.inflight >= this.capacity) return false;
    this.inflight++;
    void this.publishJob(tag, frame.subarray(4), kind);
    return true;
  }

  private async publishJob(tag: number, body: Uint8Array, kind: OpKindName): Promise<void> {
    const until = performance.now() + this.retryMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const ack = await this.js.publish(jobSubject(kind), body, { msgID: messageId(this.runId, tag), expect: { streamName: JOBS_STREAM }, timeout: Math.max(500, Math.min(PUBLISH_ATTEMPT_MS, this.retryMs)) });
        if (ack.duplicate) this.counts.duplicate_job_publishes++;
        this.inflight--;
        this.events.onWritten(tag);
        return;
      } catch (err) {
        if (this.closedReason !== null || performance.now() >= until) {
          this.inflight--;
          this.events.onSendFailed(tag, `transport: publish to ${jobSubject(kind)} failed: ${(err as Error).message}`);
          return;
        }
        this.counts.publish_retries++;
        await new Promise((r) => setTimeout(r, Math.min(250, 50 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  private onResult(data: Uint8Array): void {
    this.counts.results_read++;
    let message: ReplyMessage | null;
    try {
      const reader = new ReplyStreamReader();
      reader.push(data);
      message = reader.next();
      reader.end();
    } catch {
      message = null;
    }
    if (message === null) {
      this.counts.unreadable_results++;
      return;
    }
    const id = message.reply.job_id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(message.reply.job_id) : -1;
    if (this.finalBefore.has(id)) {
      this.counts.replayed_final_results++;
      return;
    }
    if (this.seen.has(id)) {
      this.counts.duplicate_results_dropped++;
      return;
    }
    this.seen.add(id);
    if (this.paused) this.held.push(message);
    else this.events.onReply(message);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    while (!this.paused && this.held.length > 0 && this.closedReason === null) this.events.onReply(this.held.shift()!);
  }

  close(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    if (this.watchdog) clearInterval(this.watchdog);
    this.messages?.stop();
    if (reason !== "run finished") this.events.onClosed(reason, []);
  }

  /** Waits for the results reader to end (after `close`). */
  async closed_(): Promise<void> {
    await this.reading;
  }
}

/**
 * The NATS transport of `runLoad` (`open` gets the run's effective options, a resumed run's
 * recorded ones): connects, creates missing streams, refuses a run id that
 * already has results unless resuming, and opens the broker "target".
 * @throws BrokerError `BROKER_CONNECT`, `BROKER_SETUP`, `RUN_ID_USED`.
 */
export function natsTransport(given: LoadOptions, endpoint: BrokerEndpoint, log: (line: string) => void = () => undefined): LoadTransport {
  let options = given;
  let nc: NatsConnection | null = null;
  let target: NatsTarget | null = null;
  let disconnects = 0;
  let closed = false;
  return {
    targets: 1,
    async open(run: OpenLoopRun, effective: LoadOptions) {
      options = effective;
      nc = await connectBroker(endpoint, `ssgkr-load ${options.runId}`, options.connectTimeoutMs);
      const conn = nc;
      void (async () => {
        for await (const s of conn.status()) {
          if (s.type === "disconnect") disconnects++;
          if (s.type === "disconnect" || s.type === "reconnect") log(`broker ${s.type}: ${String(s.data)}`);
        }
      })();
      await ensureStreams(nc, streamSettings(), false);
      const jsm = await nc.jetstreamManager();
      if (!options.resume) {
        const last = await jsm.streams.getMessage(RESULTS_STREAM, { last_by_subj: resultSubject(options.runId) }).catch(() => null);
        if (last !== null) {
          throw new BrokerError("RUN_ID_USED", `the broker already holds results of run id ${JSON.stringify(options.runId)}: give a new --run-id, or --resume with that run's --out`, { runId: options.runId });
        }
      }
      const js = nc.jetstream({ timeout: Math.max(1000, Math.min(10_000, options.connectTimeoutMs)) });
      target = new NatsTarget(nc, js, options.runId, options.senderQueue, options.connectTimeoutMs, run.events(0), run.restored, endpoint.servers.join(","));
      try {
        await target.startResults();
      } catch (err) {
        throw new LoadError("CONNECT", `cannot read results from ${RESULTS_STREAM}: ${(err as Error).message}`, {});
      }
      return [target];
    },
    facts(): NatsFrontendFacts {
      return { transport: "nats", servers: endpoint.servers, results_subject: resultSubject(options.runId), ...(target?.counts ?? { results_read: 0, duplicate_results_dropped: 0, replayed_final_results: 0, unreadable_results: 0, duplicate_job_publishes: 0, publish_retries: 0, consumer_restarts: 0 }), disconnects };
    },
    async close() {
      if (closed) return;
      closed = true;
      target?.close("run finished");
      await target?.closed_().catch(() => undefined);
      await nc?.drain().catch(() => undefined);
    },
  };
}

/** `p`, or a rejection once `ms` have passed without it settling (`p` itself goes on). */
function boundedWait<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from the broker within ${ms} ms`)), ms);
    p.then(
      (v) => { clearTimeout(timer); resolve(v); },
      (e: unknown) => { clearTimeout(timer); reject(e instanceof Error ? e : new Error(String(e))); },
    );
  });
}
