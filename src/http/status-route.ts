/**
 * `GET /v1/status` (docs/http.md "How it runs"): the head and the write sequencer's figures —
 * epochs committed, the last epoch's batch, size and duration, writes queued — as one JSON object.
 */
import type { FastifyInstance } from "fastify";
import { formatRoot } from "../counterparty/claim.js";
import type { HttpContext } from "./context.js";
import { SCHEMAS } from "./schemas.js";

/** The status route plugin (options: the app's `HttpContext`). */
export async function statusRoute(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  app.get("/v1/status", { schema: SCHEMAS.status }, async () => {
    const head = ctx.store.head();
    const s = ctx.sequencer?.status();
    return {
      batch: head.batch,
      root: formatRoot(head.root),
      registry_mapping: ctx.mapping,
      writes: s !== undefined ? "epochs" : ctx.auth.readOnly ? "read-only" : "one batch per write",
      ...(s !== undefined
        ? {
            sequencer: {
              epoch_ms: s.epochMs,
              epoch_max: s.epochMax,
              write_queue: s.writeQueue,
              epochs_committed: s.epochsCommitted,
              epochs_empty: s.epochsEmpty,
              writes_queued: s.writesQueued,
              idempotency_keys: s.idempotencyKeys,
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
            },
          }
        : {}),
    };
  });
}
