/**
 * A registry proof worker (`ssgkr registry worker`, docs/scale-out.md "Registry proof jobs"): a
 * process on any machine that keeps its own verified copy of the primary's registry and proves
 * the registry's jobs from it, pulled from the broker's `SSGKR_REGISTRY_JOBS` work queue.
 *
 * Its copy (src/mirror): opened or created with the primary's verifier key; it follows the
 * primary by its block proofs (`Mirror.sync`, every batch checked between two signed
 * checkpoints) and, past the last proved block, by each batch's change list kept only at the
 * primary's signed checkpoint's root (`followByChanges`) — the batches it is asked to prove have
 * no block yet. It follows every `followMs`, and at once when a job needs a newer batch. A
 * halting problem of the copy (a fork, a bad signature, a chain that does not verify) stops the
 * worker: it takes no more jobs.
 *
 * Its proofs: a pool of threads (src/proving) over the copy, read-only — a name's proof at a root
 * (v1, v3, v3-zk), a part of a batch's v3 block replayed from the copy's change log and proved
 * with `blockProverV3` — so the event loop stays free to follow, pull, extend acks and publish.
 *
 * Each pulled job is checked before any work (jobs.ts `decodeJob`): a malformed or over-bound job
 * is terminated (`term()`) on its first delivery with one small error result when its id and
 * reply token are well-formed; a job delivered more than `maxDeliveries` times is terminated
 * with a `worker_delivery_limit` result. A job whose root or batch the copy does not have yet
 * waits for the copy to follow, at most `syncWaitMs`, then is handed back with a delay (`nak`); a
 * job past its `expires` (the primary's timeout of it) is acked without proving.
 * While a job is held the worker sends an in-progress ack every third of the consumer's ack_wait;
 * a worker that dies stops doing so and the broker redelivers its jobs after ack_wait. A result is
 * published (in chunks, message ids `<job id>/<i>`) before the job is acked; a publish that keeps
 * failing for `ioTimeoutMs` hands the job back.
 */
import { hostname } from "node:os";
import { headers as natsHeaders, type JetStreamClient, type JsMsg, type NatsConnection } from "nats";
import { SsgkrError } from "../errors.js";
import { Mirror } from "../mirror/mirror.js";
import { repeatLog, type RepeatLog } from "./repeat-log.js";
import { primaryBase } from "../mirror/client.js";
import { parseVerifierKey } from "../registry/checkpoint/note.js";
import { followByChanges } from "../mirror/changes.js";
import { haltsMirror } from "../mirror/errors.js";
import { ProvingPool } from "../proving/pool.js";
import { parseRoot } from "../registry/root.js";
import { closeBroker, connectBroker, watchBroker, type BrokerEndpoint } from "../serve/nats/connect.js";
import type { StreamSettings } from "../serve/nats/stream-settings.js";
import {
  JOB_DELIVERY_LIMIT,
  JOB_MALFORMED,
  JOB_OVER_BOUND,
  REGISTRY_JOBS_STREAM,
  REGISTRY_JOB_KINDS,
  decodeJob,
  encodeResult,
  registryJobConsumer,
  registryResultSubject,
  type JobResult,
  type RegistryJob,
  type RegistryJobKind,
} from "./jobs.js";
import { ensureRegistryStreams, registryAckWaitMs } from "./streams.js";

/** Options of a registry worker. */
export interface RegistryWorkerOptions {
  readonly endpoint: BrokerEndpoint;
  readonly streams: StreamSettings;
  /** The primary's HTTP API. */
  readonly from: string;
  /** The primary's verifier key text. */
  readonly key: string;
  /** The worker's own copy (created when absent). */
  readonly db: string;
  /** Proving threads (default 1). */
  readonly threads?: number;
  /** Deliveries after which a job is answered `worker_delivery_limit` (default 5). */
  readonly maxDeliveries?: number;
  /** Expiry of each pull, ms (default 2,000). */
  readonly pullExpiresMs?: number;
  /** How long a job waits for the copy to reach its root or batch, ms (default 20,000). */
  readonly syncWaitMs?: number;
  /** Delay of a job handed back because the copy is behind, ms (default 2,000). */
  readonly nakDelayMs?: number;
  /** Milliseconds between follows of the primary (default 2,000). */
  readonly followMs?: number;
  /** Milliseconds per request to the primary and the broker (default 30,000). */
  readonly ioTimeoutMs?: number;
  /** This worker's name in results (default `<host>/<pid>`). */
  readonly hostId?: string;
}

/** Counters of a worker. */
export interface RegistryWorkerStats {
  pulled: number;
  redelivered: number;
  proved: { read: number; block: number };
  errors: number;
  refused: number;
  deliveryLimit: number;
  naked: number;
  /** Jobs past their `expires` when pulled: acked without proving. */
  expired: number;
  published: number;
  follows: number;
}

/** Hooks for operators and tests. */
export interface RegistryWorkerHooks {
  readonly log?: (line: string) => void;
  /** A job was taken (after its checks), before it is proved; the job waits for what it returns. */
  readonly onJob?: (job: RegistryJob) => void | Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A registry proof worker (see the file comment). */
export class RegistryWorker {
  readonly stats: RegistryWorkerStats = {
    pulled: 0,
    redelivered: 0,
    proved: { read: 0, block: 0 },
    errors: 0,
    refused: 0,
    deliveryLimit: 0,
    naked: 0,
    expired: 0,
    published: 0,
    follows: 0,
  };
  private readonly held = new Set<JsMsg>();
  private readonly holding: Record<RegistryJobKind, number> = { read: 0, block: 0 };
  private readonly roomWaiters: (() => void)[] = [];
  private pulling = true;
  private following: Promise<boolean> | undefined;
  private followTimer: NodeJS.Timeout | undefined;
  private ackTimer: NodeJS.Timeout | undefined;
  private pullers: Promise<void>[] = [];
  private stopping: Promise<void> | undefined;
  private readonly inflight = new Set<Promise<void>>();
  /** The problem that stopped the worker's copy, or undefined. */
  halted: SsgkrError | undefined;
  readonly hostId: string;

  private constructor(
    readonly options: RegistryWorkerOptions,
    readonly mirror: Mirror,
    private readonly pool: ProvingPool,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    readonly ackWaitMs: number,
    private readonly hooks: RegistryWorkerHooks,
  ) {
    this.hostId = options.hostId ?? `${hostname()}/${process.pid}`;
    this.done = new Promise<void>((r) => (this.resolveDone = r));
    this.followLog = repeatLog(hooks.log);
    watchBroker(nc, hooks.log && ((line) => hooks.log!(`broker: ${line}`)));
  }

  /**
   * Connects to the broker and creates the missing streams, opens (or creates) the copy, follows
   * the primary to its head, starts the proving threads, and starts pulling.
   * @throws RegistryError `BAD_VERIFIER_KEY`; MirrorError; ProvingError `WORKER_CRASHED`;
   *   BrokerError `BROKER_CONNECT`, `BROKER_SETUP`.
   */
  static async start(options: RegistryWorkerOptions, hooks: RegistryWorkerHooks = {}): Promise<RegistryWorker> {
    const io = options.ioTimeoutMs ?? 30_000;
    // what can be checked here first (the key's text, the URL's form), then the broker: a wrong
    // URL or credentials fail before the copy is created or caught up
    parseVerifierKey(options.key, "--key");
    primaryBase(options.from);
    const nc = await connectBroker(
      options.endpoint,
      `ssgkr-registry-worker ${options.hostId ?? process.pid}`,
      Math.min(io, 10_000),
    );
    let mirror: Mirror | undefined;
    let pool: ProvingPool | undefined;
    try {
      await ensureRegistryStreams(nc, options.streams, false);
      const ackWaitMs = Math.min(...(await Promise.all(REGISTRY_JOB_KINDS.map((k) => registryAckWaitMs(nc, k)))));
      mirror = await Mirror.open({
        from: options.from,
        key: options.key,
        db: options.db,
        timeoutMs: io,
        pendingWaitMs: 0,
      });
      await followOnce(mirror, io, hooks.log);
      pool = await ProvingPool.start({
        dir: mirror.store.dir,
        workers: options.threads ?? 1,
        reserveReadWorker: false,
      });
      const w = new RegistryWorker(
        options,
        mirror,
        pool,
        nc,
        nc.jetstream({ timeout: Math.min(io, 10_000) }),
        ackWaitMs,
        hooks,
      );
      w.begin();
      return w;
    } catch (e) {
      await closeBroker(nc, 2000);
      await pool?.close();
      mirror?.close();
      throw e;
    }
  }

  /** Resolves when the worker has stopped (`stop()`, or its copy halted). */
  readonly done: Promise<void>;
  /** The size of the worker's copy when it stopped (undefined while it runs). */
  stoppedAt: number | undefined;
  private resolveDone!: () => void;

  private begin(): void {
    this.ackTimer = setInterval(
      () => {
        for (const m of this.held) m.working();
      },
      Math.max(50, Math.floor(this.ackWaitMs / 3)),
    );
    this.followTimer = setInterval(() => void this.follow(), this.options.followMs ?? 2000);
    this.pullers = REGISTRY_JOB_KINDS.map((k) => this.pullLoop(k));
  }

  /**
   * A follow that starts at or after `since` (`performance.now()`): a follow already running that
   * started before is waited out first, so the one that answers has seen what the primary had at
   * `since`.
   */
  private async followSince(since: number): Promise<boolean> {
    while (this.following !== undefined && this.followStarted < since) await this.following;
    return this.follow();
  }

  /** The follow's faults, each logged once and then at most once a minute while it repeats. */
  private readonly followLog: RepeatLog;

  /** When the running (or last) follow started, `performance.now()`. */
  private followStarted = 0;

  /** Follows the primary once (one at a time); false when it could not (a fault, logged). */
  private follow(): Promise<boolean> {
    if (this.halted !== undefined) return Promise.resolve(false);
    if (this.following === undefined) this.followStarted = performance.now();
    this.following ??= followOnce(this.mirror, this.options.ioTimeoutMs ?? 30_000, this.followLog)
      .then(() => {
        this.stats.follows++;
        this.followLog.recovered("follow: the primary answers again");
        return true;
      })
      .catch((e: unknown) => {
        if (haltsMirror(e)) {
          this.halted = e;
          this.hooks.log?.(`copy halted: ${e.code}: ${e.message}; taking no more jobs`);
          void this.stop();
        } else this.followLog(`follow: ${e instanceof SsgkrError ? e.code : "ERROR"}: ${(e as Error).message}`);
        return false;
      })
      .finally(() => (this.following = undefined));
    return this.following;
  }

  private async pullLoop(kind: RegistryJobKind): Promise<void> {
    const durable = registryJobConsumer(kind);
    const threads = this.options.threads ?? 1;
    const expires = this.options.pullExpiresMs ?? 2000;
    while (this.pulling) {
      if (this.holding[kind] >= threads) {
        await new Promise<void>((r) => this.roomWaiters.push(r));
        continue;
      }
      try {
        const iter = this.js.fetch(REGISTRY_JOBS_STREAM, durable, { batch: threads - this.holding[kind], expires });
        const watchdog = setTimeout(() => iter.stop(), expires + 2000);
        try {
          for await (const m of iter) this.receive(kind, m);
        } finally {
          clearTimeout(watchdog);
        }
      } catch (e) {
        if (!this.pulling) break;
        this.hooks.log?.(`pull ${durable}: ${(e as Error).message}`);
        await sleep(250);
      }
    }
  }

  private receive(kind: RegistryJobKind, m: JsMsg): void {
    this.stats.pulled++;
    if (m.info.redelivered) this.stats.redelivered++;
    if (!this.pulling) {
      m.nak();
      return;
    }
    const d = decodeJob(m.data);
    if (!d.ok) {
      this.stats.refused++;
      const reason = `${d.refusal === "over_bound" ? JOB_OVER_BOUND : JOB_MALFORMED}: ${d.reason}`;
      this.hooks.log?.(`terminated a ${kind} job: ${reason}`);
      this.answerAndTerm(m, kind, d.id, d.reply, reason);
      return;
    }
    if (d.job.kind !== kind) {
      this.stats.refused++;
      this.answerAndTerm(
        m,
        kind,
        d.job.id,
        d.job.reply,
        `${JOB_MALFORMED}: a ${d.job.kind} job on the ${kind} subject`,
      );
      return;
    }
    if (m.info.deliveryCount > (this.options.maxDeliveries ?? 5)) {
      this.stats.deliveryLimit++;
      this.answerAndTerm(
        m,
        kind,
        d.job.id,
        d.job.reply,
        `${JOB_DELIVERY_LIMIT}: delivered ${m.info.deliveryCount} times`,
      );
      return;
    }
    if (d.job.expires !== undefined && Date.now() > d.job.expires) {
      // the primary gave up on it (its timeout): no one would use the result
      this.stats.expired++;
      m.ack();
      return;
    }
    this.hold(m, kind, this.run(m, d.job));
  }

  private hold(m: JsMsg, kind: RegistryJobKind, work: Promise<void>): void {
    this.held.add(m);
    this.holding[kind]++;
    const p = work.finally(() => {
      this.held.delete(m);
      this.holding[kind]--;
      this.inflight.delete(p);
      for (const r of this.roomWaiters.splice(0)) r();
    });
    this.inflight.add(p);
  }

  /** One error result then `term()`, published or not (a refused job ends in one outcome). */
  private answerAndTerm(
    m: JsMsg,
    kind: RegistryJobKind,
    id: string | undefined,
    reply: string | undefined,
    reason: string,
  ): void {
    const work = async () => {
      if (id !== undefined && reply !== undefined)
        await this.publish(reply, {
          id,
          ok: false,
          worker: this.hostId,
          code: "PROOF_JOB_REFUSED",
          message: reason,
          details: {},
        });
      m.term();
    };
    this.hold(
      m,
      kind,
      work().catch(() => m.term()),
    );
  }

  /** Proves a job from the copy once it has the job's root or batch (see the file comment). */
  private async run(m: JsMsg, job: RegistryJob): Promise<void> {
    await this.hooks.onJob?.(job);
    const deadline = Date.now() + (this.options.syncWaitMs ?? 20_000);
    let result: JobResult | undefined;
    /** Whether a follow that started after the job was taken reached the primary's head. */
    let caughtUp = false;
    for (;;) {
      try {
        if (job.kind === "block" && this.mirror.store.head().batch < job.batch) throw new Behind();
        result =
          job.kind === "read"
            ? this.proved(job, await this.pool.proveRead(job.name, parseRoot(job.root), job.profile))
            : this.proved(job, await this.pool.proveBlockPart(job.batch, job.part));
        break;
      } catch (e) {
        // a batch the copy does not have is waited for, never answered: the primary committed it
        const behind = e instanceof Behind || (e instanceof SsgkrError && e.code === "ROOT_UNKNOWN" && !caughtUp);
        if (!behind) {
          if (!(e instanceof SsgkrError)) this.hooks.log?.(`job ${job.id}: ${(e as Error).stack ?? String(e)}`);
          this.stats.errors++;
          result = {
            id: job.id,
            ok: false,
            worker: this.hostId,
            code: e instanceof SsgkrError ? e.code : "INTERNAL",
            message: (e as Error).message,
            details: e instanceof SsgkrError ? { ...e.details } : {},
          };
          break;
        }
        if (this.halted !== undefined || Date.now() >= deadline) {
          this.stats.naked++;
          m.nak(this.options.nakDelayMs ?? 2000);
          return;
        }
        const asked = performance.now();
        caughtUp = await this.followSince(asked);
        if (!caughtUp) await sleep(250);
      }
    }
    if (await this.publish(job.reply, result!)) m.ack();
    else m.nak(1000);
  }

  private proved(job: RegistryJob, value: { proof: Uint8Array }): JobResult {
    this.stats.proved[job.kind]++;
    const { proof, ...rest } = value;
    return { id: job.id, ok: true, worker: this.hostId, value: rest as Record<string, unknown>, proof };
  }

  /** Publishes a result's chunks; false when the broker did not store them within the I/O time. */
  private async publish(reply: string, r: JobResult): Promise<boolean> {
    let chunks;
    try {
      chunks = encodeResult(r);
    } catch (e) {
      chunks = encodeResult({
        id: r.id,
        ok: false,
        worker: this.hostId,
        code: "INTERNAL",
        message: (e as Error).message,
        details: {},
      });
    }
    const until = Date.now() + (this.options.ioTimeoutMs ?? 30_000);
    for (const c of chunks) {
      const h = natsHeaders();
      h.set("Ssgkr-Job", c.job);
      h.set("Ssgkr-Chunk", `${c.index}/${c.count}`);
      for (let attempt = 0; ; attempt++) {
        try {
          await this.js.publish(registryResultSubject(reply), c.data, {
            msgID: `${c.job}/${c.index}`,
            headers: h,
            timeout: 2000,
          });
          break;
        } catch (e) {
          if (Date.now() >= until) {
            this.hooks.log?.(`publish of ${c.job}/${c.index} failed: ${(e as Error).message}`);
            return false;
          }
          await sleep(Math.min(1000, 50 * 2 ** Math.min(attempt, 5)));
        }
      }
    }
    this.stats.published++;
    return true;
  }

  /**
   * Stops: no more pulls, the jobs in hand finish and are answered (or handed back when the copy
   * halted), then the connection drains and the threads and the copy close. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.resolve();
      this.pulling = false;
      for (const r of this.roomWaiters.splice(0)) r();
      clearInterval(this.followTimer);
      this.mirror.stop();
      while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
      await Promise.allSettled(this.pullers);
      clearInterval(this.ackTimer);
      await this.following?.catch(() => undefined);
      await closeBroker(this.nc);
      await this.pool.close();
      this.stoppedAt = this.mirror.store.head().batch;
      this.mirror.close();
      this.resolveDone();
    })();
    return this.stopping;
  }
}

/** The copy is behind the job's batch. */
class Behind extends Error {}

/**
 * One follow of the primary: its proved blocks first (`Mirror.sync`, which stops at the first
 * block still being proved), then the rest by change lists at signed checkpoints.
 * @throws MirrorError (halting ones included) and RegistryError of an update that cannot be applied.
 */
async function followOnce(m: Mirror, timeoutMs: number, log?: (line: string) => void): Promise<void> {
  try {
    await m.sync();
  } catch (e) {
    if (haltsMirror(e) || !(e instanceof SsgkrError)) throw e;
    if (e.code !== "MIRROR_PENDING") log?.(`follow by blocks: ${e.code}: ${e.message}`);
  }
  await followByChanges(m, timeoutMs);
}
