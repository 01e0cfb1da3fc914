/**
 * The bearer-token writes (docs/http.md "Writes"), as one fastify plugin: insert or replace
 * (`PUT`), delete, restore, each answering the update proof with the new head's checkpoint. Writes
 * run one at a time (write-lock.ts); the token rule is auth.ts's, checked before the body is read.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { formatRoot, type UpdateOp } from "../counterparty/claim.js";
import { isNameKeyed, nameState, proveNameUpdate } from "../counterparty/prove.js";
import { checkpointOf, nameOf, type HttpContext } from "./context.js";
import { HttpError } from "./errors.js";
import { proofBody } from "./proof-answer.js";
import { SCHEMAS } from "./schemas.js";
import { bodyValue } from "./values.js";

/** The write routes plugin (options: the app's `HttpContext`). */
export async function writeRoutes(app: FastifyInstance, ctx: HttpContext): Promise<void> {
  const { store } = ctx;
  const writeGuard = async (req: FastifyRequest) => ctx.auth.check(req.headers.authorization);

  const write = (op: "put" | UpdateOp) => async (req: FastifyRequest) => {
    const name = nameOf(req);
    const value = op === "delete" ? undefined : bodyValue(req.body, op === "put");
    if (op === "delete" && req.body !== undefined && req.body !== null && Object.keys(req.body as object).length > 0)
      throw new HttpError("BAD_INPUT", "body: DELETE takes no body", { field: "body" });
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
