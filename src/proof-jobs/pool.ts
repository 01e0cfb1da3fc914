/**
 * The primary's proving pool on the broker (`ssgkr registry http --nats`, docs/scale-out.md
 * "Registry proof jobs"): the `ProverPool` the HTTP server proves with, whose jobs are published
 * to the `SSGKR_REGISTRY_JOBS` work queue and proved by `ssgkr registry worker` processes on other
 * machines, each from its own verified copy of the registry. The primary's threads prove nothing.
 *
 * The same rules as the pool of threads (src/proving/pool.ts): a bounded number of jobs of each
 * kind outstanding (`PROVER_BUSY` past it, before anything is published), the block prover's
 * parts at most `blockCapacity` at once, every job settled once. A job is published with its id as
 * the broker's message id; its result comes back on this primary's results subject (chunks of the
 * `SSGKR_REGISTRY_RESULTS` stream, read by an ordered consumer) and is used once: the first whole
 * result of a pending job settles it, and any later copy (a redelivered job proved twice) is
 * dropped. A read without a result within its time rejects with `PROVER_TIMEOUT`; a block part
 * is published again as a new job instead (`proveBlockPart`).
 *
 * Results are checked before they are used: a read proof must be of the job's name and root; a
 * block part must be of the job's batch and part, verify (`verifyRegistryBlock`, about 18 ms per
 * 1,024 updates) between its roots, and start (end) at the root of the batch before (of the
 * batch) when it is the first (last) part. A result that does not rejects with `PROOF_JOB_REFUSED`.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JsMsg, type NatsConnection } from "nats";
import { SsgkrError } from "../errors.js";
import type { NameProof } from "../counterparty/prove.js";
import type { ReadStatementJson } from "../counterparty/claim.js";
import { ProvingError } from "../proving/errors.js";
import type { ProverPool, ProvingPoolStats } from "../proving/pool.js";
import type { ProvedBlockPart, ReadProfile } from "../proving/jobs.js";
import { formatRoot, parseRoot } from "../registry/root.js";
import { verifyRegistryBlock } from "../registry/verify-block.js";
import type { StoredBlockSummary } from "../registry/store/block-rows.js";
import { closeBroker, connectBroker, watchBroker, type BrokerEndpoint } from "../serve/nats/connect.js";
import type { StreamSettings } from "../serve/nats/stream-settings.js";
import {
  REGISTRY_RESULTS_STREAM,
  decodeResult,
  encodeJob,
  parseChunkHeader,
  primaryToken,
  registryJobSubject,
  registryResultSubject,
  type JobResult,
  type RegistryJob,
  type RegistryJobKind,
} from "./jobs.js";
import { ensureRegistryStreams } from "./streams.js";

/** Options of `NatsProvingPool.start`. */
export interface NatsPoolOptions {
  readonly endpoint: BrokerEndpoint;
  /** Settings of the streams the pool creates when they are missing. */
  readonly streams: StreamSettings;
  /** This primary's results token (default `<host>-<pid>-<random>`, made subject-safe). */
  readonly token?: string;
  /** Read proofs outstanding before `PROVER_BUSY` (default 256). */
  readonly maxQueuedReads?: number;
  /** Block parts outstanding before `PROVER_BUSY` (default 64). */
  readonly maxQueuedBlocks?: number;
  /** Block parts the block prover keeps on the broker at once (default 2). */
  readonly blockCapacity?: number;
  /** Milliseconds a read proof may take, broker and worker included (default 60,000). */
  readonly readTimeoutMs?: number;
  /** Milliseconds a block part may take before its job is published again (default 900,000). */
  readonly blockTimeoutMs?: number;
  /** Milliseconds for the broker's answers (connect, publish; default 5,000). */
  readonly ioTimeoutMs?: number;
  /** The root of a committed batch (block parts' end roots are checked against it), or undefined. */
  readonly batchRoot?: (batch: number) => ArrayLike<number> | undefined;
  /** Trouble lines. */
  readonly log?: (line: string) => void;
}

interface Pending {
  readonly job: RegistryJob;
  readonly resolve: (r: JobResult & { ok: true }) => void;
  readonly reject: (e: unknown) => void;
  readonly timer: NodeJS.Timeout;
  chunks?: (Uint8Array | undefined)[];
  got?: number;
}

/** How long a worker counts as seen after its last result, ms. */
const WORKER_SEEN_MS = 60_000;

/**
 * A proving pool whose workers are `ssgkr registry worker` processes behind a NATS JetStream
 * broker (see the file comment).
 * @example
 *   const pool = await NatsProvingPool.start({ endpoint: brokerEndpoint({ nats: "nats://127.0.0.1:4222" }), streams: streamSettings() });
 *   const p = await pool.proveRead("left-pad", store.head().root, "v3");
 */
export class NatsProvingPool implements ProverPool {
  private readonly pending = new Map<string, Pending>();
  private readonly outstanding: Record<RegistryJobKind, number> = { read: 0, block: 0 };
  private readonly done = { read: 0, block: 0 };
  private readonly seen = new Map<string, number>();
  private duplicates = 0;
  private refused = 0;
  private next = 1;
  private closed = false;
  private consuming: Promise<void> | undefined;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly messages: ConsumerMessages,
    /** This primary's results token. */
    readonly token: string,
    private readonly opts: NatsPoolOptions,
  ) {
    this.consuming = this.consume();
    this.link = watchBroker(nc, opts.log);
  }

  /** Whether the connection to the broker is up (`stats().broker.connected`). */
  private readonly link: { connected: boolean };

  /**
   * Connects, creates the streams and consumers that are missing, and starts reading this
   * primary's results.
   * @throws BrokerError `BROKER_CONNECT`, `BROKER_SETUP`; ProvingError `WORKER_CRASHED` (`BAD_OPTION`) for an option out of range.
   */
  static async start(opts: NatsPoolOptions): Promise<NatsProvingPool> {
    for (const [k, min, max] of [
      ["maxQueuedReads", 1, 1_000_000],
      ["maxQueuedBlocks", 1, 1_000_000],
      ["blockCapacity", 1, 1024],
      ["readTimeoutMs", 100, 86_400_000],
      ["blockTimeoutMs", 100, 86_400_000],
    ] as const) {
      const v = opts[k];
      if (v !== undefined && (!Number.isSafeInteger(v) || v < min || v > max))
        throw new ProvingError("WORKER_CRASHED", `${k} must be an integer in [${min}, ${max}], got ${v}`, {
          code: "BAD_OPTION",
        });
    }
    const token = primaryToken(opts.token ?? `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`);
    const io = opts.ioTimeoutMs ?? 5000;
    const nc = await connectBroker(opts.endpoint, `ssgkr-registry-primary ${token}`, io);
    try {
      await ensureRegistryStreams(nc, opts.streams, false);
      const js = nc.jetstream({ timeout: io });
      const consumer = await js.consumers.get(REGISTRY_RESULTS_STREAM, {
        filterSubjects: registryResultSubject(token),
        deliver_policy: DeliverPolicy.New,
      });
      const messages = await consumer.consume();
      return new NatsProvingPool(nc, js, messages, token, opts);
    } catch (e) {
      await nc.close().catch(() => undefined);
      throw e;
    }
  }

  /** Workers that sent a result within the last minute. */
  get workers(): number {
    const now = Date.now();
    for (const [w, at] of this.seen) if (now - at > WORKER_SEEN_MS) this.seen.delete(w);
    return this.seen.size;
  }

  get blockCapacity(): number {
    return this.opts.blockCapacity ?? 2;
  }

  async proveRead(name: string, root: ArrayLike<number>, profile: ReadProfile): Promise<NameProof<ReadStatementJson>> {
    const hex = formatRoot(root);
    const r = await this.submit("read", (id, expires) => ({
      v: 1,
      id,
      kind: "read",
      reply: this.token,
      name,
      root: hex,
      profile,
      expires,
    }));
    const v = r.value as {
      statement?: ReadStatementJson;
      profile?: unknown;
      zk?: unknown;
      request?: unknown;
      proveMs?: unknown;
    };
    const s = v.statement;
    if (s === undefined || s === null || typeof s !== "object" || s.name !== name || s.root !== hex)
      throw this.refusedResult(r, `a read proof that is not of ${JSON.stringify(name.slice(0, 100))} at root ${hex}`);
    return {
      statement: s,
      profile: profile === "v1" ? "v1" : "v3",
      zk: profile === "v3-zk",
      ...(profile === "v1" && v.request !== null && typeof v.request === "object"
        ? { request: v.request as Record<string, unknown> }
        : {}),
      proof: r.proof,
      proveMs: typeof v.proveMs === "number" ? v.proveMs : 0,
    };
  }

  /**
   * Part `part` of committed batch `batch`'s v3 block, proved by a worker and checked (see the
   * file comment). A part is never given up for lack of a worker: without a result within the
   * block timeout, or when the broker does not take the job, it is published again as a new job
   * (the first one expires on the queue, and a late result of it is dropped), until the pool closes.
   * @throws ProvingError `PROOF_JOB_REFUSED`, `PROVER_CLOSED`; the worker's errors of the replay or proof.
   */
  async proveBlockPart(batch: number, part: number): Promise<ProvedBlockPart> {
    let r: JobResult & { ok: true };
    for (let attempt = 0; ; attempt++) {
      try {
        r = await this.submit("block", (id, expires) => ({
          v: 1,
          id,
          kind: "block",
          reply: this.token,
          batch,
          part,
          expires,
        }));
        break;
      } catch (e) {
        const transient = e instanceof ProvingError && (e.code === "PROVER_TIMEOUT" || e.details.broker === true);
        if (!transient || this.closed) throw e;
        this.opts.log?.(`block part ${part} of batch ${batch}: ${e.message}; published again`);
        await new Promise((res) => setTimeout(res, Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5))).unref());
      }
    }
    const v = r.value as { summary?: StoredBlockSummary; blockJson?: unknown; proveMs?: unknown };
    const s = v.summary;
    if (s === undefined || s === null || typeof s !== "object" || typeof v.blockJson !== "string")
      throw this.refusedResult(r, "a block result without its summary and block.json");
    if (s.batch !== batch || (s.part ?? 0) !== part)
      throw this.refusedResult(r, `a block part of batch ${s.batch} part ${s.part ?? 0}, not ${batch} part ${part}`);
    let fromRoot, toRoot;
    try {
      fromRoot = parseRoot(s.from_root, "from_root");
      toRoot = parseRoot(s.to_root, "to_root");
    } catch {
      throw this.refusedResult(r, "a block part whose roots do not parse");
    }
    const before = this.opts.batchRoot?.(batch - 1);
    const after = this.opts.batchRoot?.(batch);
    const last = s.parts === undefined || part === s.parts - 1;
    if (part === 0 && before !== undefined && formatRoot(before) !== formatRoot(fromRoot))
      throw this.refusedResult(r, `block part 0 of batch ${batch} does not start at the root of batch ${batch - 1}`);
    if (last && after !== undefined && formatRoot(after) !== formatRoot(toRoot))
      throw this.refusedResult(r, `the last block part of batch ${batch} does not end at the batch's root`);
    const verdict = verifyRegistryBlock({ fromRoot, toRoot }, { blockJson: v.blockJson, proof: r.proof });
    if (!verdict.ok)
      throw this.refusedResult(
        r,
        `block part ${part} of batch ${batch} does not verify: ${verdict.code}: ${verdict.reason}`,
      );
    const summary: StoredBlockSummary = {
      ...s,
      proof_bytes: r.proof.length,
      json_bytes: Buffer.byteLength(v.blockJson, "utf8"),
    };
    return { summary, blockJson: v.blockJson, proof: r.proof, proveMs: typeof v.proveMs === "number" ? v.proveMs : 0 };
  }

  stats(): ProvingPoolStats {
    return {
      workers: this.workers,
      busy: this.outstanding.read + this.outstanding.block,
      queued: { read: this.outstanding.read, block: this.outstanding.block },
      done: { ...this.done },
      retried: 0,
      replaced: 0,
      broker: {
        server: this.nc.getServer(),
        connected: this.link.connected,
        duplicates: this.duplicates,
        refused: this.refused,
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const gone = new ProvingError("PROVER_CLOSED", "the proving pool was closed");
    for (const p of [...this.pending.values()]) this.settle(p, () => p.reject(gone));
    this.messages.stop();
    await this.consuming?.catch(() => undefined);
    await closeBroker(this.nc);
  }

  private refusedResult(r: JobResult, why: string): ProvingError {
    this.refused++;
    return new ProvingError("PROOF_JOB_REFUSED", `worker ${r.worker}: ${why}`, { worker: r.worker });
  }

  /** Publishes a job and waits for its result (see the file comment). */
  private async submit(
    kind: RegistryJobKind,
    make: (id: string, expires: number) => RegistryJob,
  ): Promise<JobResult & { ok: true }> {
    if (this.closed) throw new ProvingError("PROVER_CLOSED", "the proving pool is closed");
    const max = kind === "read" ? (this.opts.maxQueuedReads ?? 256) : (this.opts.maxQueuedBlocks ?? 64);
    if (this.outstanding[kind] >= max)
      throw new ProvingError(
        "PROVER_BUSY",
        `${this.outstanding[kind]} ${kind} proofs already wait for a worker; retry later`,
        {
          kind,
          queued: this.outstanding[kind],
        },
      );
    const ms = kind === "read" ? (this.opts.readTimeoutMs ?? 60_000) : (this.opts.blockTimeoutMs ?? 900_000);
    const job = make(`${this.token}-${this.next++}`, Date.now() + ms);
    this.outstanding[kind]++;
    const result = new Promise<JobResult & { ok: true }>((resolve, reject) => {
      const timer = setTimeout(() => {
        const p = this.pending.get(job.id);
        if (p !== undefined)
          this.settle(p, () =>
            p.reject(
              new ProvingError(
                "PROVER_TIMEOUT",
                `no worker answered this ${kind} proof within ${ms / 1000} s; retry later`,
                {
                  kind,
                },
              ),
            ),
          );
      }, ms);
      this.pending.set(job.id, { job, resolve, reject, timer });
    });
    try {
      await this.js.publish(registryJobSubject(kind), encodeJob(job), { msgID: job.id });
    } catch (e) {
      const p = this.pending.get(job.id);
      if (p !== undefined)
        this.settle(p, () =>
          p.reject(
            new ProvingError("PROVER_BUSY", `the broker did not take the ${kind} proof job: ${(e as Error).message}`, {
              kind,
              broker: true,
            }),
          ),
        );
    }
    return result;
  }

  private settle(p: Pending, how: () => void): void {
    if (this.pending.get(p.job.id) !== p) return;
    this.pending.delete(p.job.id);
    clearTimeout(p.timer);
    this.outstanding[p.job.kind]--;
    how();
  }

  private async consume(): Promise<void> {
    try {
      for await (const m of this.messages) this.onChunk(m);
    } catch (e) {
      if (!this.closed) this.opts.log?.(`results of ${this.token}: ${(e as Error).message}`);
    }
  }

  /** One result chunk: kept for its pending job; a whole result settles the job once. */
  private onChunk(m: JsMsg): void {
    const id = m.headers?.get("Ssgkr-Job") ?? "";
    const c = parseChunkHeader(m.headers?.get("Ssgkr-Chunk"));
    const p = this.pending.get(id);
    if (p === undefined || c === undefined) {
      this.duplicates++;
      return;
    }
    if (p.chunks === undefined || p.chunks.length !== c.count) {
      p.chunks = new Array<Uint8Array | undefined>(c.count).fill(undefined);
      p.got = 0;
    }
    if (p.chunks[c.index] !== undefined) return;
    p.chunks[c.index] = m.data;
    p.got = (p.got ?? 0) + 1;
    if (p.got < c.count) return;
    const r = decodeResult(Buffer.concat(p.chunks as Uint8Array[]));
    p.chunks = undefined;
    if (r === undefined || r.id !== id) {
      this.refused++;
      this.opts.log?.(`a malformed result of job ${id} was dropped`);
      return;
    }
    this.seen.set(r.worker, Date.now());
    this.done[p.job.kind]++;
    if (r.ok) this.settle(p, () => p.resolve(r));
    else {
      const refused = /^(job_over_bound|job_malformed|worker_delivery_limit)/.test(r.message);
      this.settle(p, () =>
        p.reject(
          refused
            ? new ProvingError("PROOF_JOB_REFUSED", `worker ${r.worker}: ${r.message}`, { worker: r.worker })
            : new SsgkrError(r.code, r.message, r.details),
        ),
      );
    }
  }
}
