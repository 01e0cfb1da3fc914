/**
 * Registry blocks (docs/registry.md "Block proofs", docs/profile-v2.md §11): the next K updates of
 * a name-keyed registry applied as one committed batch (one transaction, one history entry of
 * kind "block"), each planned against the state its predecessors left, so update i's new root is
 * update i+1's old root. What a block proof needs — every update's old and new leaf, siblings
 * and roots — is collected while the batch is written; `beforeCommit` runs inside the transaction
 * (to prove the block and write its files), and throwing there commits nothing.
 */
import { digestEquals, type Digest } from "../hash/digest.js";
import type { UpdateRecord } from "../smt/tree.js";
import { RegistryError } from "./errors.js";
import { MAX_BLOCK_UPDATES } from "./block-limits.js";
import type { RecordValue } from "./mapping.js";
import { planNameUpdate, type NameUpdateKind, type PlannedNameUpdate } from "./name-operations.js";
import type { NameHistoryEntry, NameStore } from "./store/name-store.js";
import type { PendingBlock } from "./store/pending-block.js";

/** One update of a block, in the form of the registry's update commands. */
export interface BlockUpdate {
  readonly op: NameUpdateKind;
  readonly name: string;
  /** insert and replace: required; restore: optional (default the last value); delete: none. */
  readonly value?: RecordValue;
}

export { MAX_BLOCK_UPDATES } from "./block-limits.js";

const OPS: readonly NameUpdateKind[] = ["insert", "replace", "delete", "restore"];
const FIELDS = ["op", "name", "value", "null", "fields"];

function lineError(line: number, message: string): RegistryError {
  return new RegistryError("BAD_RECORD", `line ${line}: ${message}`, { line });
}

/**
 * Parses block updates from NDJSON: one JSON object a line, blank lines skipped:
 *   {"op":"insert","name":"left-pad","value":"git+https://…"}   text value
 *   {"op":"replace","name":"n","null":true}                     the null value
 *   {"op":"insert","name":"n","fields":[1,2,3]}                  field elements
 *   {"op":"delete","name":"n"}      {"op":"restore","name":"n"} (optionally with a value)
 * @param limit most updates read (default all); lines after them are not parsed.
 * @throws RegistryError `BAD_RECORD` naming the 1-based line (`details.line`); `BAD_BLOCK` for no
 *   updates or more than MAX_BLOCK_UPDATES.
 */
export function parseBlockUpdates(text: string, limit = MAX_BLOCK_UPDATES): BlockUpdate[] {
  const out: BlockUpdate[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && out.length < limit; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    const line = i + 1;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      throw lineError(line, `not valid JSON: ${(e as Error).message}`);
    }
    out.push(blockUpdateOf(v, line));
  }
  if (out.length === 0)
    throw new RegistryError("BAD_BLOCK", "a block needs at least one update; the updates file has none");
  if (out.length > MAX_BLOCK_UPDATES)
    throw new RegistryError("BAD_BLOCK", `a block holds at most ${MAX_BLOCK_UPDATES} updates, got ${out.length}`);
  return out;
}

/**
 * One update from its parsed JSON object (the form `parseBlockUpdates` reads a line into).
 * @throws RegistryError `BAD_RECORD` naming the 1-based `line`.
 */
export function blockUpdateOf(v: unknown, line: number): BlockUpdate {
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw lineError(line, 'an update must be a JSON object {"op": …, "name": …}');
  const o = v as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !FIELDS.includes(k));
  if (extra.length > 0)
    throw lineError(line, `unknown field ${JSON.stringify(extra[0])} (known: ${FIELDS.join(", ")})`);
  if (typeof o.op !== "string" || !OPS.includes(o.op as NameUpdateKind))
    throw lineError(line, `"op" must be one of ${OPS.join(", ")}, got ${JSON.stringify(o.op)}`);
  const op = o.op as NameUpdateKind;
  if (typeof o.name !== "string" || o.name === "")
    throw lineError(line, `"name" must be a non-empty string, got ${JSON.stringify(o.name)}`);
  const given = ["value", "null", "fields"].filter((k) => o[k] !== undefined);
  if (given.length > 1)
    throw lineError(line, `give at most one of "value", "null" and "fields", got ${given.join(", ")}`);
  let value: RecordValue | undefined;
  if (o.value !== undefined) {
    if (typeof o.value !== "string")
      throw lineError(line, `"value" must be a string (use "null": true or "fields": [...] for the other forms)`);
    value = o.value;
  } else if (o.null !== undefined) {
    if (o.null !== true) throw lineError(line, `"null" must be true`);
    value = null;
  } else if (o.fields !== undefined) {
    if (!Array.isArray(o.fields) || !o.fields.every((f) => Number.isSafeInteger(f) && (f as number) >= 0))
      throw lineError(line, `"fields" must be an array of non-negative integers`);
    value = { fields: o.fields as number[] };
  }
  if ((op === "insert" || op === "replace") && value === undefined)
    throw lineError(line, `${op} needs a value ("value", "null" or "fields")`);
  if (op === "delete" && value !== undefined) throw lineError(line, "delete takes no value");
  return value === undefined ? { op, name: o.name } : { op, name: o.name, value };
}

/** One applied update of a block: the update, its planned rows and the values a proof needs. */
export interface AppliedUpdate {
  readonly update: BlockUpdate;
  readonly planned: PlannedNameUpdate;
  readonly record: UpdateRecord;
}

export interface AppliedBlock {
  readonly fromRoot: Digest;
  readonly toRoot: Digest;
  readonly updates: readonly AppliedUpdate[];
  /** The history entry of the committed batch (kind "block"). */
  readonly entry: NameHistoryEntry;
}

/**
 * Applies `updates` in order as one batch.
 * @param beforeCommit runs inside the write transaction with the applied updates (the block
 *   proof is made and written here); throwing aborts the batch.
 * @param options `pending`: the block's pending record (`NameStore.recordPendingBlock`), marked
 *   committed in the batch's transaction; `expectBatch`: the head batch the block was planned
 *   against (default the head when called).
 * @throws RegistryError of the first failing update (its `details.update` is its 0-based index;
 *   nothing is written), `BAD_BLOCK` for no or too many updates, `CONCURRENT_UPDATE`.
 */
export function applyNameBlock(
  store: NameStore,
  updates: readonly BlockUpdate[],
  beforeCommit?: (applied: Omit<AppliedBlock, "entry">) => void,
  options: { readonly pending?: PendingBlock; readonly expectBatch?: number } = {},
): AppliedBlock {
  if (updates.length === 0 || updates.length > MAX_BLOCK_UPDATES)
    throw new RegistryError("BAD_BLOCK", `a block holds 1..${MAX_BLOCK_UPDATES} updates, got ${updates.length}`);
  const start = store.head();
  let applied: AppliedUpdate[] = [];
  let fromRoot: Digest = start.root;
  const entry = store.commit({
    kind: "block",
    expectBatch: options.expectBatch ?? start.batch,
    ...(options.pending !== undefined ? { pending: options.pending } : {}),
    write: (w, head) => {
      applied = [];
      fromRoot = head.root;
      let root = head.root;
      const totals = { newRecords: 0, live: 0, deleted: 0 };
      updates.forEach((u, i) => {
        // Reads inside the write transaction see the earlier updates of this block.
        const l = store.lookup(u.name);
        const state = { ...l, path: store.path(l.key), head: { ...head, root } };
        let p: PlannedNameUpdate;
        try {
          p = planNameUpdate(store, u.op, u.name, u.value, state);
        } catch (e) {
          if (e instanceof RegistryError)
            throw new RegistryError(e.code, `update ${i + 1} (${u.op} ${JSON.stringify(u.name)}): ${e.message}`, {
              ...e.details,
              update: i,
            });
          throw e;
        }
        p.writeTo(w);
        applied.push({
          update: u,
          planned: p,
          record: {
            key: BigInt(p.key),
            oldLeaf: p.oldLeaf,
            newLeaf: p.newLeaf,
            siblings: p.siblings,
            oldRoot: p.oldRoot,
            newRoot: p.newRoot,
          },
        });
        totals.newRecords += p.deltas.newRecords;
        totals.live += p.deltas.live;
        totals.deleted += p.deltas.deleted;
        root = p.newRoot;
      });
      w.logChanges(
        applied.map(({ update: u, planned: p }) =>
          p.newValue === undefined ? { op: u.op, name: u.name } : { op: u.op, name: u.name, value: p.newValue },
        ),
      );
      beforeCommit?.({ fromRoot, toRoot: root, updates: applied });
      return {
        root,
        newRecords: totals.newRecords,
        liveDelta: totals.live,
        deletedDelta: totals.deleted,
        written: updates.length,
      };
    },
  });
  const toRoot = applied[applied.length - 1]!.planned.newRoot;
  if (!digestEquals(entry.root, toRoot))
    throw new RegistryError(
      "DB_CORRUPT",
      `the committed root of block batch ${entry.batch} differs from the planned root`,
      { batch: entry.batch },
    );
  return { fromRoot, toRoot, updates: applied, entry };
}
