/**
 * Single-record updates of a name-keyed registry: insert, replace, delete, restore, each one batch
 * (one transaction, one history entry), planned first (checked, new root computed from the path)
 * and committed afterwards. A failing update leaves the database unchanged.
 */
import { digestEquals, type Digest } from "../hash/digest.js";
import { hashLeaf, TOMBSTONE, LeafTag, type Leaf } from "../smt/leaf.js";
import { RegistryError } from "./errors.js";
import { recordLeaf, type RecordValue } from "./mapping.js";
import { MAX_NAME_DEPTH } from "./name-key.js";
import { requireNfcName } from "./name-form.js";
import { bitAt, prefixOf } from "./hashing/name-tree.js";
import { RecordState, encodeRecord, type StoredRecord } from "./store/record-codec.js";
import type { NameHistoryEntry, NameState, NameStore, NameWriter } from "./store/name-store.js";

/** The updates of a name-keyed registry (record-leaf-v2). */
export type NameUpdateKind = "insert" | "replace" | "delete" | "restore";

/** A checked update that has not been written yet. */
export interface PlannedNameUpdate {
  readonly kind: NameUpdateKind;
  readonly name: string;
  readonly key: number;
  readonly oldLeaf: Leaf;
  readonly newLeaf: Leaf;
  /** The `depth` siblings of the key, leaf level first (the same before and after). */
  readonly siblings: Digest[];
  readonly oldRoot: Digest;
  readonly newRoot: Digest;
  /** The record's value before (undefined when the name was never registered). */
  readonly oldValue: RecordValue | undefined;
  /** The record's value after (undefined for a delete). */
  readonly newValue: RecordValue | undefined;
  readonly batch: number;
  /** Changes of the head's counts (records, live, deleted) this update makes. */
  readonly deltas: { readonly newRecords: number; readonly live: number; readonly deleted: number };
  /** Writes the update's rows into a batch (`writeBlock` of name-block.ts; `commit` uses it too). */
  writeTo(w: NameWriter): void;
  /** Writes the update. @throws RegistryError `CONCURRENT_UPDATE`. */
  commit(): NameHistoryEntry;
}

/**
 * The error for a name whose key holds another name.
 */
export function collisionError(store: NameStore, name: string, key: number, other: string): RegistryError {
  const d = store.config.depth;
  const advice =
    d < MAX_NAME_DEPTH
      ? `create a registry with a larger --depth (up to ${MAX_NAME_DEPTH}) and import the records again`
      : `at depth ${d} this happens about once per 2^${d} / n names; register the record under another name, or use a slot-v1 registry`;
  return new RegistryError(
    "KEY_COLLISION",
    `name ${JSON.stringify(name)} has key ${key}, the first ${d} bits of its Keccak-256, which already holds ${JSON.stringify(other)}; one key holds one name, so this registry cannot hold both: ${advice}`,
    { name, key, other },
  );
}

function plan(
  store: NameStore,
  kind: NameUpdateKind,
  s: NameState,
  newLeaf: Leaf,
  row: StoredRecord,
  deltas: { newRecords: number; live: number; deleted: number },
  oldValue: RecordValue | undefined,
  newValue: RecordValue | undefined,
): PlannedNameUpdate {
  const B = store.config.leafMaxFields;
  const digest = newLeaf.tag === LeafTag.Tombstone ? store.tombstoneDigest : hashLeaf(newLeaf, B);
  const c = store.hasher();
  const depth = store.config.depth;
  // the path nodes after the update, leaf level up
  const nodes: Digest[] = [digest];
  let acc = digest;
  for (let h = 0; h < depth; h++) {
    acc = bitAt(s.key, h) === 0 ? c.one(acc, s.path.siblings[h]!) : c.one(s.path.siblings[h]!, acc);
    nodes.push(acc);
  }
  const newRoot = acc;
  const rowBytes = encodeRecord(row);
  const writeTo = (w: NameWriter): void => {
    w.putLeaf(s.key, rowBytes, digest);
    for (let h = 0; h < depth; h++) if (s.path.occupied[h]) w.putBranch(h + 1, prefixOf(s.key, h + 1), nodes[h + 1]!);
  };
  return {
    kind,
    name: s.name,
    key: s.key,
    oldLeaf: s.leaf,
    newLeaf,
    siblings: s.path.siblings,
    oldRoot: s.head.root,
    newRoot,
    oldValue,
    newValue,
    batch: s.head.batch,
    deltas,
    writeTo,
    commit(): NameHistoryEntry {
      const entry = store.commit({
        kind,
        expectBatch: s.head.batch,
        name: s.name,
        write: (w) => {
          writeTo(w);
          w.logChanges([
            newValue === undefined ? { op: kind, name: s.name } : { op: kind, name: s.name, value: newValue },
          ]);
          return {
            root: newRoot,
            newRecords: deltas.newRecords,
            liveDelta: deltas.live,
            deletedDelta: deltas.deleted,
            written: 1,
          };
        },
      });
      if (!digestEquals(entry.root, newRoot))
        throw new RegistryError(
          "DB_CORRUPT",
          `the committed root of batch ${entry.batch} differs from the planned root`,
          { batch: entry.batch },
        );
      return entry;
    },
  };
}

/** The name's state (from `state` when given, e.g. read inside a block's transaction), collision-checked. */
function stateOf(store: NameStore, name: string, state?: NameState): NameState {
  const s = state ?? store.nameState(name);
  if (s.other !== undefined) throw collisionError(store, name, s.key, s.other.name);
  return s;
}

/**
 * Plans registering a new name (Empty → Occupied at its key).
 * @throws RegistryError `NAME_EXISTS`, `NAME_DELETED`, `KEY_COLLISION`, `BAD_NAME`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function planNameInsert(
  store: NameStore,
  name: string,
  value: RecordValue,
  state?: NameState,
): PlannedNameUpdate {
  const newLeaf = recordLeaf(name, value, store.config.leafMaxFields);
  requireNfcName(name);
  const s = stateOf(store, name, state);
  if (s.record?.state === RecordState.Live)
    throw new RegistryError(
      "NAME_EXISTS",
      `record ${JSON.stringify(name)} already exists; use replace to change its value`,
      { name },
    );
  if (s.record?.state === RecordState.Deleted)
    throw new RegistryError(
      "NAME_DELETED",
      `record ${JSON.stringify(name)} was deleted; restore it instead of inserting`,
      { name },
    );
  return plan(
    store,
    "insert",
    s,
    newLeaf,
    { state: RecordState.Live, name, value },
    { newRecords: 1, live: 1, deleted: 0 },
    undefined,
    value,
  );
}

/**
 * Plans changing a live record's value.
 * @throws RegistryError `RECORD_ABSENT`, `KEY_COLLISION`, `BAD_NAME`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function planNameReplace(
  store: NameStore,
  name: string,
  value: RecordValue,
  state?: NameState,
): PlannedNameUpdate {
  const newLeaf = recordLeaf(name, value, store.config.leafMaxFields);
  requireNfcName(name);
  const s = stateOf(store, name, state);
  if (s.record?.state !== RecordState.Live)
    throw new RegistryError(
      "RECORD_ABSENT",
      `replace needs a live record; ${JSON.stringify(name)} ${s.record ? "is deleted" : "was never registered"}`,
      { name },
    );
  return plan(
    store,
    "replace",
    s,
    newLeaf,
    { state: RecordState.Live, name, value },
    { newRecords: 0, live: 0, deleted: 0 },
    s.record.value,
    value,
  );
}

/**
 * Plans deleting a live record (Occupied → Tombstone; the name keeps its key for a restore). A
 * record under a name that is not in NFC (written before names were checked) can be deleted.
 * @throws RegistryError `RECORD_ABSENT`, `KEY_COLLISION`, `BAD_NAME`.
 */
export function planNameDelete(store: NameStore, name: string, state?: NameState): PlannedNameUpdate {
  const s = stateOf(store, name, state);
  if (s.record?.state !== RecordState.Live)
    throw new RegistryError(
      "RECORD_ABSENT",
      `delete needs a live record; ${JSON.stringify(name)} ${s.record ? "is already deleted" : "was never registered"}`,
      { name },
    );
  return plan(
    store,
    "delete",
    s,
    TOMBSTONE,
    { ...s.record, state: RecordState.Deleted },
    { newRecords: 0, live: -1, deleted: 1 },
    s.record.value,
    undefined,
  );
}

/**
 * Plans bringing a deleted record back with `value` (or its last value).
 * @throws RegistryError `RECORD_LIVE`, `NOT_DELETED`, `KEY_COLLISION`, `BAD_NAME`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function planNameRestore(
  store: NameStore,
  name: string,
  value?: RecordValue,
  state?: NameState,
): PlannedNameUpdate {
  requireNfcName(name);
  const s = stateOf(store, name, state);
  if (s.record === undefined)
    throw new RegistryError(
      "NOT_DELETED",
      `restore needs a deleted record; ${JSON.stringify(name)} was never registered`,
      { name },
    );
  if (s.record.state === RecordState.Live)
    throw new RegistryError("RECORD_LIVE", `restore needs a deleted record; ${JSON.stringify(name)} is live`, { name });
  const v = value === undefined ? s.record.value : value;
  const newLeaf = recordLeaf(name, v, store.config.leafMaxFields);
  return plan(
    store,
    "restore",
    s,
    newLeaf,
    { state: RecordState.Live, name, value: v },
    { newRecords: 0, live: 1, deleted: -1 },
    undefined,
    v,
  );
}

/**
 * Plans an update of any kind (value required for insert/replace, optional for restore).
 * @param state the name's state to plan against (default: read from the committed head).
 */
export function planNameUpdate(
  store: NameStore,
  kind: NameUpdateKind,
  name: string,
  value?: RecordValue,
  state?: NameState,
): PlannedNameUpdate {
  if ((kind === "insert" || kind === "replace") && value === undefined)
    throw new RegistryError("BAD_VALUE", `${kind} needs a value`);
  if (kind === "insert") return planNameInsert(store, name, value!, state);
  if (kind === "replace") return planNameReplace(store, name, value!, state);
  if (kind === "delete") return planNameDelete(store, name, state);
  return planNameRestore(store, name, value, state);
}

/**
 * Plans and commits an update in one write transaction, against the head as that transaction
 * sees it: a batch another process (a server's epoch) committed before is simply the state the
 * update starts from, never a `CONCURRENT_UPDATE`.
 * @throws RegistryError as `planNameUpdate` (nothing written).
 */
export function commitNameUpdate(
  store: NameStore,
  kind: NameUpdateKind,
  name: string,
  value?: RecordValue,
): { planned: PlannedNameUpdate; entry: NameHistoryEntry } {
  return store.writeTransaction(() => {
    const l = store.lookup(name);
    const state: NameState = { ...l, path: store.path(l.key), head: store.head() };
    const planned = planNameUpdate(store, kind, name, value, state);
    return { planned, entry: planned.commit() };
  });
}
