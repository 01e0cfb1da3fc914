/**
 * `GET /v1/status` (docs/http.md "How it runs"): what the server is doing, for operators and
 * monitors — the head, the background block prover (batches proved through, pending, parts
 * proving now, failed, the proving lag in seconds), the proving pool (workers, busy, queued and
 * done by kind, retried jobs, replaced workers) and the process (uptime, event-loop delay p99 in
 * ms over the last minute, memory). Read from memory and the store's head only: it never waits
 * for the pool.
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
  delay.enable();
  // the delay histogram covers about the last minute
  const reset = setInterval(() => delay.reset(), 60_000);
  reset.unref();
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
              };
            })(),
      process: {
        uptime_s: Math.round((Date.now() - started) / 1000),
        event_loop_delay_p99_ms: Math.round(delay.percentile(99) / 1e4) / 100,
        rss_mb: Math.round(mem.rss / (1 << 20)),
        heap_mb: Math.round(mem.heapUsed / (1 << 20)),
      },
      ...(ctx.mirrorStatus !== undefined ? { mirror: ctx.mirrorStatus() } : {}),
    };
  });
}

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
