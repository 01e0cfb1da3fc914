/**
 * `GET /v1/changes/:batch?part=P` (docs/http.md "Change lists"): the change list of a committed
 * batch of a name-keyed registry, one storage part (4,096 updates at most) per request, in
 * block.json's update form. The same updates are public in the batch's block.json once its block
 * is proved; a registry worker (docs/scale-out.md "Registry proof jobs") replays them against its
 * own copy to follow the head before the blocks are proved, and keeps the batch only when the
 * root it reaches is the one of the primary's signed checkpoint of that size.
 */
import type { FastifyInstance } from "fastify";
import { isNameKeyed } from "../counterparty/prove.js";
import type { LoggedChange } from "../registry/store/change-log.js";
import { RegistryError } from "../registry/errors.js";
import type { HttpContext } from "./context.js";
import { HttpError } from "./errors.js";
import { SCHEMAS } from "./schemas.js";
import { queryInt } from "./values.js";

/** One change as block.json lists an update. */
function updateJson(u: LoggedChange): Record<string, unknown> {
  const o: Record<string, unknown> = { op: u.op, name: u.name };
  if (u.value === undefined) return o;
  if (u.value === null) o.null = true;
  else if (typeof u.value === "string") o.value = u.value;
  else o.fields = [...u.value.fields];
  return o;
}

/** Registers `GET /v1/changes/:batch`. */
export function registerChangesRoute(app: FastifyInstance, ctx: HttpContext): void {
  const { store } = ctx;
  app.get("/v1/changes/:batch", { schema: SCHEMAS.changes }, async (req) => {
    const text = (req.params as { batch: string }).batch;
    if (!/^[0-9]{1,10}$/.test(text))
      throw new HttpError("BAD_INPUT", `path batch: must be a batch number, got ${JSON.stringify(text.slice(0, 40))}`, {
        field: "batch",
      });
    const batch = Number(text);
    const part = queryInt((req.query as { part?: unknown }).part, "query.part", 0, 99_999);
    if (!isNameKeyed(store) || batch < 1 || batch > store.head().batch)
      throw new HttpError("SIZE_UNKNOWN", `batch ${batch} is not a committed batch of this registry`, { batch });
    const header = store.changeHeader(batch);
    if (header === undefined)
      throw new RegistryError("CHANGES_NOT_RECORDED", `the changes of batch ${batch} were not recorded`, { batch });
    if (part >= Math.max(1, header.parts))
      throw new HttpError("BAD_INPUT", `query.part: batch ${batch}'s change list has ${header.parts} parts`, {
        field: "query.part",
      });
    const changes = header.parts === 0 ? [] : store.changePart(batch, part).map(updateJson);
    return { batch, updates: header.updates, parts: header.parts, part, changes };
  });
}
