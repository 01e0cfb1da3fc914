/**
 * The change log of a name-keyed registry (docs/registry.md "Consistency between checkpoints"):
 * every batch that changes the tree (insert, replace, delete, restore, block, import) records, in
 * its own write transaction, the ordered list of its updates, so a profile v3 block proof of that
 * batch can be made later from the registry alone (consistency/replay.ts). Rows in the `changes`
 * table (format 4), sealed like the others, keyed by the batch (4 bytes big-endian), so key order
 * is batch order and each batch's rows are appended after the last:
 *
 * - batch: JSON `{"updates": n, "parts": k}` (k = ⌈n / CHANGE_PART_UPDATES⌉);
 * - batch ‖ part (4 bytes big-endian): a JSON array of at most `CHANGE_PART_UPDATES`
 *   updates in the block.json form (`{"op", "name"}` and `"value"`, `"null": true` or
 *   `"fields": [...]`; a restore lists the value it restored).
 *
 * Format 3 kept the same rows in `meta` under `changes:<batch>` and `changes:<batch>:<part>`
 * (ten and six decimal digits); `registry upgrade` moves them (`changeKeyOfMetaKey`).
 *
 * A bulk import (into an empty registry) logs only a header `{"updates": n, "parts": k,
 * "created": true}`: its updates are the inserts of the leaf rows the batch created, in key order
 * (each row carries its creating batch), so the log does not hold the records a second time.
 *
 * A batch committed before the registry kept its changes has no header row: its changes are "not
 * recorded" (`CHANGES_NOT_RECORDED`), and no block proof can be made for it.
 */
import { RegistryError } from "../errors.js";
import type { RecordValue } from "../mapping.js";

/** Key prefix of format 3's change-log rows in `meta`. */
export const CHANGES_PREFIX = "changes:";

/** Updates per change-log part: a part is one block (the largest block, name-block.ts). */
export const CHANGE_PART_UPDATES = 4096;

/** One logged update (the value it wrote; none for a delete). */
export interface LoggedChange {
  readonly op: "insert" | "replace" | "delete" | "restore";
  readonly name: string;
  /** The value written (insert, replace, restore); absent for a delete. */
  readonly value?: RecordValue;
}

/** What a batch's header row says: its updates and parts. */
export interface ChangeHeader {
  readonly updates: number;
  readonly parts: number;
  /** The updates are the inserts of the leaf rows the batch created, in key order (no part rows). */
  readonly created?: true;
}

/** `changes` key of a batch's header row: the batch, 4 bytes big-endian. */
export function changeHeaderKey(batch: number): Buffer {
  const k = Buffer.allocUnsafe(4);
  k.writeUInt32BE(batch, 0);
  return k;
}

/** `changes` key of part `part` of a batch's change list: batch ‖ part, 4 bytes big-endian each. */
export function changePartKey(batch: number, part: number): Buffer {
  const k = Buffer.allocUnsafe(8);
  k.writeUInt32BE(batch, 0);
  k.writeUInt32BE(part, 4);
  return k;
}

/** How errors name a `changes` row. */
export function changeRowName(key: Uint8Array): string {
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  if (b.length === 4) return `change-log header of batch ${b.readUInt32BE(0)}`;
  if (b.length === 8) return `change-log part ${b.readUInt32BE(4)} of batch ${b.readUInt32BE(0)}`;
  return "change-log row (malformed key)";
}

/**
 * The `changes` key of a format-3 change-log row of `meta` (`changes:<batch>` or
 * `changes:<batch>:<part>`), or undefined when the key is not one.
 */
export function changeKeyOfMetaKey(metaKey: Uint8Array): Buffer | undefined {
  const m = /^changes:(\d{10})(?::(\d{6}))?$/.exec(Buffer.from(metaKey).toString("latin1"));
  if (m === null) return undefined;
  return m[2] === undefined ? changeHeaderKey(Number(m[1])) : changePartKey(Number(m[1]), Number(m[2]));
}

function changeJson(c: LoggedChange): Record<string, unknown> {
  const o: Record<string, unknown> = { op: c.op, name: c.name };
  if (c.value === undefined) return o;
  if (c.value === null) o.null = true;
  else if (typeof c.value === "string") o.value = c.value;
  else o.fields = [...c.value.fields];
  return o;
}

/** The header row of a batch whose updates are the inserts of the `n` leaf rows it created. */
export function encodeCreatedChanges(batch: number, n: number): { key: Buffer; value: Buffer } {
  return {
    key: changeHeaderKey(batch),
    value: Buffer.from(JSON.stringify({ updates: n, parts: Math.ceil(n / CHANGE_PART_UPDATES), created: true })),
  };
}

/** The rows of a batch's change list: the header and its parts, in key order. */
export function encodeChanges(batch: number, changes: readonly LoggedChange[]): { key: Buffer; value: Buffer }[] {
  const parts = Math.ceil(changes.length / CHANGE_PART_UPDATES);
  const rows = [
    { key: changeHeaderKey(batch), value: Buffer.from(JSON.stringify({ updates: changes.length, parts })) },
  ];
  for (let p = 0; p < parts; p++) {
    const slice = changes.slice(p * CHANGE_PART_UPDATES, (p + 1) * CHANGE_PART_UPDATES);
    rows.push({ key: changePartKey(batch, p), value: Buffer.from(JSON.stringify(slice.map(changeJson))) });
  }
  return rows;
}

/** A header row's counts. @throws RegistryError `DB_CORRUPT`. */
export function decodeChangeHeader(raw: Uint8Array, what: string): ChangeHeader {
  let h: { updates?: unknown; parts?: unknown; created?: unknown };
  try {
    h = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8")) as typeof h;
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `${what}: not JSON (${(e as Error).message})`, { row: what });
  }
  const n = h?.updates,
    k = h?.parts;
  if (
    typeof n !== "number" ||
    !Number.isInteger(n) ||
    n < 0 ||
    typeof k !== "number" ||
    k !== Math.ceil(n / CHANGE_PART_UPDATES) ||
    (h.created !== undefined && h.created !== true)
  ) {
    throw new RegistryError("DB_CORRUPT", `${what}: not a change-log header`, { row: what });
  }
  return h.created === true ? { updates: n, parts: k, created: true } : { updates: n, parts: k };
}

function valueOf(o: Record<string, unknown>): RecordValue | undefined {
  if (typeof o.value === "string") return o.value;
  if (o.null === true) return null;
  if (Array.isArray(o.fields) && o.fields.every((f) => Number.isSafeInteger(f) && (f as number) >= 0))
    return { fields: o.fields as number[] };
  return undefined;
}

/** A part row's updates. @throws RegistryError `DB_CORRUPT`. */
export function decodeChangePart(raw: Uint8Array, what: string): LoggedChange[] {
  let list: unknown;
  try {
    list = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8"));
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `${what}: not JSON (${(e as Error).message})`, { row: what });
  }
  if (!Array.isArray(list) || list.length === 0 || list.length > CHANGE_PART_UPDATES)
    throw new RegistryError("DB_CORRUPT", `${what}: not a list of 1..${CHANGE_PART_UPDATES} updates`, { row: what });
  return list.map((u, i) => {
    const o = u as Record<string, unknown>;
    const op = o?.op;
    if (
      (op !== "insert" && op !== "replace" && op !== "delete" && op !== "restore") ||
      typeof o.name !== "string" ||
      o.name === ""
    )
      throw new RegistryError("DB_CORRUPT", `${what}: update ${i + 1} is malformed`, { row: what });
    const value = valueOf(o);
    if ((op === "delete") !== (value === undefined))
      throw new RegistryError(
        "DB_CORRUPT",
        `${what}: update ${i + 1} (${op}) ${op === "delete" ? "has" : "lacks"} a value`,
        { row: what },
      );
    return value === undefined ? { op, name: o.name } : { op, name: o.name, value };
  });
}
