/**
 * `GET /v1/status` (docs/http.md "How it runs"): what the server is doing, for operators and
 * monitors — the head, the background block prover (batches proved through, pending, parts
 * proving now, failed, the proving lag in seconds), the proving pool (workers, busy, queued and
 * done by kind, retried jobs, replaced workers), the process (uptime, the event-loop delay's
 * p99 and max in ms over the last whole 10-s window — the current one until the first closes —,
 * memory) and the write sequencer (epochs committed, the last epoch's batch, size and duration,
 * writes queued). Read from memory and the store's head only: it never waits for the pool.
 */
import type { FastifyInstance } from "fastify";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { formatRoot } from "../counterparty/claim.js";
import type { BlockProver } from "../registry/consistency/block-prover.js";
import type { HttpContext } from "./context.js";

/** The route schema (OpenAPI). */
export const STATUS_SCHEMA = {
  summary: "what the server is doing: head, block proving and its lag, the proving pool, the process",
  tags: ["status"],
  response: { 200: { type: "object", additionalProperties: true } },
} as const;

/** Registers `GET /v1/status` over the app's context and its block prover (undefined when none runs). */
export function registerStatusRoute(app: FastifyInstance, ctx: HttpContext, prover: BlockProver | undefined): void {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  // measured from when the app is ready (start-up work excluded), in windows of 10 s: the last
  // whole window's p99 and max are reported
  let reset: NodeJS.Timeout | undefined;
  let window = { p99: 0, max: 0, at: 0 };
  app.addHook("onReady", async () => {
    delay.enable();
    reset = setInterval(() => {
      window = { p99: delay.percentile(99), max: delay.max, at: Date.now() };
      delay.reset();
    }, DELAY_WINDOW_MS);
    reset.unref();
  });
  app.addHook("onClose", async () => {
    clearInterval(reset);
    delay.disable();
  });
  const started = Date.now();
  app.get("/v1/status", { schema: STATUS_SCHEMA }, async () => {
    const head = ctx.store.head();
    const mem = process.memoryUsage();
    return {
      head: { batch: head.batch, root: formatRoot(head.root), records: head.live },
      blocks: prover === undefined ? { proving: false } : { proving: true, ...snake(prover.status()) },
      pool:
        ctx.pool === undefined
          ? { workers: 0 }
          : (() => {
              const s = ctx.pool.stats();
              return {
                workers: s.workers,
                busy: s.busy,
                queued: s.queued,
                done: s.done,
                retried: s.retried,
                replaced: s.replaced,
                ...(s.broker !== undefined ? { broker: s.broker } : {}),
              };
            })(),
      writes: writesOf(ctx),
      process: {
        uptime_s: Math.round((Date.now() - started) / 1000),
        event_loop_delay_p99_ms: ms(window.at > 0 ? window.p99 : delay.percentile(99)),
        event_loop_delay_max_ms: ms(window.at > 0 ? window.max : delay.max),
        rss_mb: Math.round(mem.rss / (1 << 20)),
        heap_mb: Math.round(mem.heapUsed / (1 << 20)),
      },
      ...(ctx.mirrorStatus !== undefined ? { mirror: ctx.mirrorStatus() } : {}),
    };
  });
}

/** The window of the event-loop delay figures. */
export const DELAY_WINDOW_MS = 10_000;

/** Nanoseconds as milliseconds with two decimals. */
const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/** The prover's status with snake_case keys, as the API spells its fields. */
function snake(s: ReturnType<BlockProver["status"]>) {
  return {
    head: s.head,
    proved_through: s.provedThrough,
    pending_batches: s.pendingBatches,
    proving_parts: s.provingParts,
    failed_batches: s.failedBatches,
    lag_s: s.lagSeconds,
  };
}

/** The writes' figures: the sequencer's (name-keyed registries served with a token), else how writes run. */
function writesOf(ctx: HttpContext) {
  const s = ctx.sequencer?.status();
  if (s === undefined) return { mode: ctx.auth.readOnly ? "read-only" : "one batch per write" };
  return {
    mode: "epochs",
    epoch_ms: s.epochMs,
    epoch_max: s.epochMax,
    write_queue: s.writeQueue,
    epochs_committed: s.epochsCommitted,
    epochs_empty: s.epochsEmpty,
    writes_queued: s.writesQueued,
    idempotency_keys: s.idempotencyKeys,
    writer: s.writer,
    writing: s.writing,
    last_epoch:
      s.lastEpoch === undefined
        ? null
        : {
            batch: s.lastEpoch.batch,
            updates: s.lastEpoch.updates,
            failed: s.lastEpoch.failed,
            ms: s.lastEpoch.ms,
            committed_at: s.lastEpoch.committedAt,
          },
  };
}
