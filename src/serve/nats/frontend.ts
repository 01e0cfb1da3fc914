/**
 * The load frontend's NATS transport (`ssgkr load --nats …`, docs/scale-out.md): the same
 * open-loop run, ledger, summary and report as over TCP, with one "target" — the broker.
 *
 * Offering: each job's JSON (the protocol-1 Job, without its length prefix) is published to its
 * kind's subject with msgID `run_id/job_id`; the job counts as submitted once the broker stored
 * it. A publish that fails (broker node lost, timeout) is retried with the same msgID (the
 * jobs stream stores it once) until `connect-timeout-ms` has passed, then the job is a
 * transport error. Every job is within the bounds a worker checks (job-bounds.ts): a run id over
 * `MAX_RUN_ID_BYTES` is refused before anything is published, a job body over
 * `MAX_BROKER_JOB_BYTES` is a transport error and never published. At most `sender-queue` publishes are outstanding; beyond that an offer is a
 * generator failure, as a full sender queue is over TCP.
 *
 * Results: a pull consumer of the frontend's own on the run's results subject, from its first
 * message, with the results stream's replicas (so it survives a broker node as the workers' job
 * consumers do: its leader moves, its position is kept), explicit acks (a result is acked once
 * the ledger has it; one lost in flight with a broker node is redelivered after
 * `RESULTS_ACK_WAIT_MS`) and an inactivity threshold (the broker removes it when the frontend is
 * gone; it is deleted when the run ends). It is read with pulls of `RESULTS_EXPIRES_MS` that
 * return as soon as results arrive; a pull cut by a lost node is given up
 * `RESULTS_PULL_GRACE_MS` past its expiry and pulled again. A resumed frontend reads back every result
 * of its run with a new consumer. (An ordered consumer is a single in-memory replica: when its
 * node dies, re-creating it waits for the broker to notice, tens of seconds.)
 * Results are de-duplicated by job id before they reach the ledger (a job proved twice after a
 * redelivery outside the duplicate window, or results of jobs already final before a resume).
 */
import { randomBytes } from "node:crypto";
import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
} from "nats";
import { ReplyStreamReader, type ReplyMessage } from "../protocol/streams.js";
import type { OpKindName } from "../../statement/types.js";
import { LoadError } from "../load/errors.js";
import type { LoadTransport } from "../load/load.js";
import type { LoadOptions } from "../load/options.js";
import type { OpenLoopRun, RunConnection, RunEvents } from "../load/run.js";
import { closeBroker, connectBroker, type BrokerEndpoint } from "./connect.js";
import { BrokerError } from "./errors.js";
import { MAX_BROKER_JOB_BYTES, MAX_RUN_ID_BYTES } from "./job-bounds.js";
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
  /** Times the results consumer had to be created again (it was gone). */
  readonly consumer_restarts: number;
  /** Broker disconnects seen. */
  readonly disconnects: number;
};

/** Expiry of each pull of results, ms (a pull returns as soon as results arrive). */
export const RESULTS_EXPIRES_MS = 2000;

/** How long past its expiry a pull of results may stay open before it is given up, ms. */
export const RESULTS_PULL_GRACE_MS = 2000;

/** Redelivery of a result not acked by the frontend (lost in flight with a broker node), ms. */
export const RESULTS_ACK_WAIT_MS = 10_000;

/** The broker removes a results consumer unused for this long (its frontend gone), ms. */
export const RESULTS_INACTIVE_MS = 300_000;

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
  private reading: Promise<void> | null = null;
  private jsm: JetStreamManager | null = null;
  /** Name of the frontend's results consumer. */
  private readonly consumer = `ssgkr-results-${randomBytes(8).toString("hex")}`;
  private stopPull: (() => void) | null = null;
  /** Highest results-stream sequence read. */
  private lastSeq = 0;
  readonly counts = {
    results_read: 0,
    duplicate_results_dropped: 0,
    replayed_final_results: 0,
    unreadable_results: 0,
    duplicate_job_publishes: 0,
    publish_retries: 0,
    consumer_restarts: 0,
  };

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

  /** Creates the results consumer (from the first result of the run) and starts reading. */
  async startResults(): Promise<void> {
    this.jsm = await this.nc.jetstreamManager();
    await this.createConsumer(0);
    this.reading = this.readResults();
  }

  /** Creates the results consumer, from stream sequence `fromSeq + 1` (0: the run's first result). */
  private async createConsumer(fromSeq: number): Promise<void> {
    await this.jsm!.consumers.add(RESULTS_STREAM, {
      durable_name: this.consumer,
      filter_subject: resultSubject(this.runId),
      ...(fromSeq > 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq + 1 }
        : { deliver_policy: DeliverPolicy.All }),
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(RESULTS_ACK_WAIT_MS),
      max_deliver: -1,
      max_ack_pending: 4096,
      inactive_threshold: nanos(RESULTS_INACTIVE_MS),
    });
  }

  /** Pulls results until the run ends; a pull that fails or hangs (a lost node) is retried. */
  private async readResults(): Promise<void> {
    while (this.closedReason === null) {
      try {
        const iter = this.js.fetch(RESULTS_STREAM, this.consumer, { batch: 256, expires: RESULTS_EXPIRES_MS });
        this.stopPull = () => iter.stop();
        const watchdog = setTimeout(() => iter.stop(), RESULTS_EXPIRES_MS + RESULTS_PULL_GRACE_MS);
        try {
          for await (const m of iter) {
            if (m.seq > this.lastSeq) this.lastSeq = m.seq;
            this.onResult(m.data);
            m.ack();
          }
        } finally {
          clearTimeout(watchdog);
          this.stopPull = null;
        }
      } catch (err) {
        if (this.closedReason !== null) break;
        const gone = await boundedWait(this.jsm!.consumers.info(RESULTS_STREAM, this.consumer), 2000).then(
          () => false,
          (e: Error) => /consumer not found/i.test(e.message),
        );
        if (gone && this.closedReason === null) {
          // removed (inactivity while the frontend was cut off): again after the last result read
          this.counts.consumer_restarts++;
          await boundedWait(this.createConsumer(this.lastSeq), 5000).catch(() => undefined);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
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
    if (body.length > MAX_BROKER_JOB_BYTES) {
      // a worker would terminate it unproved (job-bounds.ts): it is never published
      this.inflight--;
      this.events.onSendFailed(
        tag,
        `transport: job of ${body.length} bytes exceeds the broker job bound of ${MAX_BROKER_JOB_BYTES} bytes`,
      );
      return;
    }
    const until = performance.now() + this.retryMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const ack = await this.js.publish(jobSubject(kind), body, {
          msgID: messageId(this.runId, tag),
          expect: { streamName: JOBS_STREAM },
          timeout: Math.max(500, Math.min(PUBLISH_ATTEMPT_MS, this.retryMs)),
        });
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
    this.stopPull?.();
    if (reason !== "run finished") this.events.onClosed(reason, []);
  }

  /** Waits for the results reader to end (after `close`), then deletes the results consumer. */
  async closed_(): Promise<void> {
    await this.reading;
    await boundedWait(this.jsm!.consumers.delete(RESULTS_STREAM, this.consumer), 2000).catch(() => undefined);
  }
}

/**
 * The NATS transport of `runLoad` (`open` gets the run's effective options, a resumed run's
 * recorded ones): connects, creates missing streams, refuses a run id that
 * already has results unless resuming, and opens the broker "target".
 * @throws BrokerError `BAD_OPTION` (a run id over `MAX_RUN_ID_BYTES`), `BROKER_CONNECT`, `BROKER_SETUP`, `RUN_ID_USED`.
 */
export function natsTransport(
  given: LoadOptions,
  endpoint: BrokerEndpoint,
  log: (line: string) => void = () => undefined,
): LoadTransport {
  let options = given;
  let nc: NatsConnection | null = null;
  let target: NatsTarget | null = null;
  let disconnects = 0;
  let closed = false;
  return {
    targets: 1,
    async open(run: OpenLoopRun, effective: LoadOptions) {
      options = effective;
      if (Buffer.byteLength(options.runId, "utf8") > MAX_RUN_ID_BYTES)
        throw new BrokerError("BAD_OPTION", `--run-id must be at most ${MAX_RUN_ID_BYTES} bytes (UTF-8)`, {
          option: "--run-id",
        });
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
        const last = await jsm.streams
          .getMessage(RESULTS_STREAM, { last_by_subj: resultSubject(options.runId) })
          .catch(() => null);
        if (last !== null) {
          throw new BrokerError(
            "RUN_ID_USED",
            `the broker already holds results of run id ${JSON.stringify(options.runId)}: give a new --run-id, or --resume with that run's --out`,
            { runId: options.runId },
          );
        }
      }
      const js = nc.jetstream({ timeout: Math.max(1000, Math.min(10_000, options.connectTimeoutMs)) });
      target = new NatsTarget(
        nc,
        js,
        options.runId,
        options.senderQueue,
        options.connectTimeoutMs,
        run.events(0),
        run.restored,
        endpoint.servers.join(","),
      );
      try {
        await target.startResults();
      } catch (err) {
        throw new LoadError("CONNECT", `cannot read results from ${RESULTS_STREAM}: ${(err as Error).message}`, {});
      }
      return [target];
    },
    facts(): NatsFrontendFacts {
      return {
        transport: "nats",
        servers: endpoint.servers,
        results_subject: resultSubject(options.runId),
        ...(target?.counts ?? {
          results_read: 0,
          duplicate_results_dropped: 0,
          replayed_final_results: 0,
          unreadable_results: 0,
          duplicate_job_publishes: 0,
          publish_retries: 0,
          consumer_restarts: 0,
        }),
        disconnects,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      target?.close("run finished");
      await target?.closed_().catch(() => undefined);
      await closeBroker(nc);
    },
  };
}

/** `p`, or a rejection once `ms` have passed without it settling (`p` itself goes on). */
function boundedWait<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from the broker within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
