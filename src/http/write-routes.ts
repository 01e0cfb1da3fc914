/**
 * The bearer-token writes (docs/http.md "Writes"), as one fastify plugin: insert or replace
 * (`PUT`), delete, restore. The token rule is auth.ts's, checked before the body is read.
 *
 * Name-keyed registries: every write goes through the sequencer (registry/sequencer/sequencer.ts)
 * and is applied in an epoch; it is answered `200` once its epoch has committed (write-answer.ts:
 * its update, batch, position in the batch's change log, root, checkpoint, and where to get a
 * proof of the new state), or `202` as soon as it is durable under `Prefer: respond-async`. An
 * `Idempotency-Key` makes a retried write apply once. Slot registries (record-leaf-v1) apply one
 * write per batch, proved on the request path, one at a time (write-lock.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { formatRoot, type UpdateOp } from "../counterparty/claim.js";
import { isNameKeyed, nameState, proveNameUpdate } from "../counterparty/prove.js";
import { checkpointOf, nameOf, type HttpContext } from "./context.js";
import { HttpError } from "./errors.js";
import { proofBody } from "./proof-answer.js";
import { SCHEMAS } from "./schemas.js";
import { bodyValue } from "./values.js";
import { acceptedAnswer, committedAnswerJson, idempotencyKeyOf, prefersAsync, storedError } from "./write-answer.js";

/** The write routes plugin (options: the app's `HttpContext`). */
export async function writeRoutes(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  const { store } = ctx;
  const writeGuard = async (req: FastifyRequest) => ctx.auth.check(req.headers.authorization);

  const write = (op: "put" | UpdateOp) => async (req: FastifyRequest, reply: FastifyReply) => {
    const name = nameOf(req);
    const value = op === "delete" ? undefined : bodyValue(req.body, op === "put");
    if (op === "delete" && req.body !== undefined && req.body !== null && Object.keys(req.body as object).length > 0)
      throw new HttpError("BAD_INPUT", "body: DELETE takes no body", { field: "body" });
    const sequencer = ctx.sequencer;
    if (sequencer !== undefined) {
      if (op === "insert" || op === "replace") throw new HttpError("INTERNAL", `no route writes ${op}`);
      const idempotencyKey = idempotencyKeyOf(req);
      const w = { op, name, ...(value !== undefined ? { value } : {}), idempotencyKey };
      const async = prefersAsync(req);
      const a = async ? await sequencer.accept(w) : await sequencer.submit(w);
      if (a.kind === "queue-full") {
        void reply.header("retry-after", String(a.retryAfterS));
        throw new HttpError(
          "WRITE_QUEUE_FULL",
          `${a.queued} writes already wait for an epoch (--write-queue ${sequencer.writeQueue}); retry after ${a.retryAfterS} s`,
        );
      }
      if (a.kind === "key-reused")
        throw new HttpError(
          "IDEMPOTENCY_KEY_REUSED",
          `Idempotency-Key ${JSON.stringify(a.key)} was used by another write (another method, name or body); use a new key for a new write`,
        );
      if (a.replayed) void reply.header("idempotent-replayed", "true");
      if (a.kind === "accepted") {
        void reply.status(202);
        return acceptedAnswer(op, name, sequencer.epochMs);
      }
      if (!a.result.ok) throw storedError(a.result);
      return reply.type("application/json; charset=utf-8").send(committedAnswerJson(ctx, name, a.result));
    }
    return ctx.lock.run(() => {
      let actual: UpdateOp = op === "put" ? "insert" : op;
      if (op === "put") {
        const state = nameState(store, name);
        if (state.status === "deleted")
          throw new HttpError(
            "NAME_DELETED",
            `${JSON.stringify(name)} is deleted; restore it with POST /v1/records/{name}/restore (a name keeps its ${isNameKeyed(store) ? "key" : "slot"})`,
          );
        actual = state.status === "live" ? "replace" : "insert";
      }
      const p = proveNameUpdate(store, actual, name, value);
      const head = store.head();
      return proofBody(
        p,
        { root: p.statement.new_root, batch: p.statement.batch },
        checkpointOf(ctx, head.batch, formatRoot(head.root)),
      );
    });
  };

  app.put("/v1/records/:name", { schema: SCHEMAS.put, onRequest: writeGuard }, write("put"));
  app.delete("/v1/records/:name", { schema: SCHEMAS.del, onRequest: writeGuard }, write("delete"));
  app.post("/v1/records/:name/restore", { schema: SCHEMAS.restore, onRequest: writeGuard }, write("restore"));
}
