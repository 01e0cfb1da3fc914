/**
 * The kept profile v3 block proofs (`registry prove-block --profile v3`, and the background block
 * prover), as one fastify plugin: the list, one block as the body `POST /v1/verify` checks, its
 * block.json and its block.bin (a batch proved in parts: `?part=N`); and the consistency chains
 * between checkpoints (consistency-route.ts).
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { bytesBase64 } from "../counterparty/body.js";
import { isNameKeyed } from "../counterparty/prove.js";
import { batchBlockParts } from "../registry/consistency/block-prover.js";
import { registerConsistencyRoute } from "./consistency-route.js";
import { registerStatusRoute } from "./status-route.js";
import { registerChangesRoute } from "./changes-route.js";
import type { HttpContext } from "./context.js";
import { HttpError } from "./errors.js";
import { SCHEMAS } from "./schemas.js";
import { queryInt } from "./values.js";

/** The block routes plugin (options: the app's `HttpContext`). */
export async function blockRoutes(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  const { store } = ctx;
  const blockOf = (req: FastifyRequest) => {
    const text = (req.params as { batch: string }).batch;
    if (!/^[0-9]{1,10}$/.test(text))
      throw new HttpError("BAD_INPUT", `path batch: must be a batch number, got ${JSON.stringify(text.slice(0, 40))}`, {
        field: "batch",
      });
    const batch = Number(text);
    const q = req.query as { part?: unknown };
    const part = q.part === undefined ? undefined : queryInt(q.part, "query.part", 0, 99_999);
    const parts = isNameKeyed(store) ? batchBlockParts(store, batch) : 1;
    if (parts > 1 && part === undefined)
      throw new HttpError(
        "BAD_INPUT",
        `query.part: batch ${batch} is proved in ${parts} parts (more updates than one block proof holds): give part=0..${parts - 1}`,
        { field: "query.part" },
      );
    if (parts <= 1 && part !== undefined)
      throw new HttpError(
        "BLOCK_NOT_FOUND",
        `batch ${batch} is not proved in parts (only a batch of more updates than one block proof holds is): ask without part`,
        { batch },
      );
    const b = isNameKeyed(store) ? store.blockProof(batch, part) : undefined;
    if (b === undefined)
      throw new HttpError(
        "BLOCK_NOT_FOUND",
        `batch ${batch}${part !== undefined ? ` part ${part}` : ""} has no kept profile v3 block proof in this registry (GET /v1/blocks lists those it has: blocks that \`registry prove-block --profile v3\` committed, and those the block prover made after the commits)`,
        { batch },
      );
    return b;
  };

  app.get("/v1/blocks", { schema: SCHEMAS.blocks }, async (req) => {
    const q = req.query as { after?: unknown; limit?: unknown };
    const after = q.after === undefined ? undefined : queryInt(q.after, "query.after", 0, 999_999_999);
    const limit = queryInt(q.limit, "query.limit", 100, 1000);
    if (!isNameKeyed(store)) return { blocks: [], more: false };
    const from = after !== undefined ? { after } : {};
    const list = store.blockProofs({ ...from, limit: limit + 1 });
    let blocks = list.slice(0, limit);
    let more = list.length > limit;
    // A page holds whole batches (paging goes on with after = its last batch): a batch in parts
    // cut by the limit goes to the next page, or, alone on the page, is listed whole.
    const cut = more && blocks.length > 0 ? blocks[blocks.length - 1]! : undefined;
    if (cut !== undefined && list[limit]!.batch === cut.batch) {
      const whole = blocks.filter((b) => b.batch !== cut.batch);
      if (whole.length > 0) blocks = whole;
      else {
        blocks = store
          .blockProofs({ after: cut.batch - 1, limit: cut.parts ?? 1 })
          .filter((b) => b.batch === cut.batch);
        more = store.blockProofs({ after: cut.batch, limit: 1 }).length > 0;
      }
    }
    return { blocks, more };
  });

  app.get("/v1/blocks/:batch", { schema: SCHEMAS.block }, async (req, reply) => {
    const b = blockOf(req);
    // block.json's text is kept as written; the body is {"block": <block.json>, "proof": "<base64>"}.
    void reply.type("application/json; charset=utf-8");
    return `{"block":${b.blockJson.trimEnd()},"proof":${JSON.stringify(bytesBase64(b.proof))},"batch":${b.summary.batch}}`;
  });

  app.get("/v1/blocks/:batch/block.json", { schema: SCHEMAS.blockJson }, async (req, reply) => {
    const b = blockOf(req);
    void reply.type("application/json; charset=utf-8");
    return b.blockJson;
  });

  app.get("/v1/blocks/:batch/block.bin", { schema: SCHEMAS.blockBin }, async (req, reply) => {
    const b = blockOf(req);
    void reply
      .header("content-type", "application/octet-stream")
      .header("x-ssgkr-from-root", b.summary.from_root)
      .header("x-ssgkr-to-root", b.summary.to_root);
    return Buffer.from(b.proof.buffer, b.proof.byteOffset, b.proof.byteLength);
  });

  const prover = registerConsistencyRoute(
    app,
    store,
    ctx.proveBlocks,
    ctx.consistencyPageBytes,
    ctx.pool,
    ctx.sequencer?.writer,
  );
  registerChangesRoute(app, ctx);
  registerStatusRoute(app, ctx, prover);
}
