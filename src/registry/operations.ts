/**
 * Single-record updates of a registry: insert, replace, delete, restore. Each is one batch
 * (one transaction, one history entry) and returns the data of the compat-v1 Update it performed
 * (old/new leaf, the shared path, old/new root), which is what a transition proof needs.
 *
 * Every check runs before anything is written; a failing update leaves the database unchanged.
 */
import { hashLeaf, TOMBSTONE, type Leaf } from "../smt/leaf.js";
import { computeRootFromDigest } from "../smt/path.js";
import { digestEquals, type Digest } from "../hash/digest.js";
import { RegistryError } from "./errors.js";
import { nameBytes, recordLeaf, type RecordValue } from "./mapping.js";
import { requireNfcName } from "./name-form.js";
import { RecordState, encodeRecord, slotKey, type StoredRecord } from "./store/record-codec.js";
import { nameEntry, type HistoryEntry, type RegistryHead, type RegistryStore } from "./store/store.js";
import { sealRow } from "./store/row-checksum.js";

/** A record addressed by name or by slot. */
export type RecordTarget = { readonly name: string } | { readonly slot: number };

/** The updates of a slot-mapped registry (slot-v1). */
export type UpdateKind = "insert" | "replace" | "delete" | "restore";

/** What an update did. */
export interface UpdateResult {
  readonly kind: UpdateKind;
  readonly slot: number;
  readonly name: string;
  readonly oldLeaf: Leaf;
  readonly newLeaf: Leaf;
  /** The `depth` siblings of the slot, leaf level first (the same before and after). */
  readonly siblings: Digest[];
  readonly oldRoot: Digest;
  readonly newRoot: Digest;
  readonly entry: HistoryEntry;
}

/** A resolved target read from one snapshot. */
interface Resolved {
  readonly head: RegistryHead;
  readonly slot: number;
  readonly record: StoredRecord | undefined;
  readonly siblings: Digest[];
}

function describeTarget(t: RecordTarget, slot: number): string {
  return "name" in t ? `record ${JSON.stringify(t.name)} (slot ${slot})` : `slot ${slot}`;
}

/**
 * Resolves a target to its slot and current record.
 * @throws RegistryError `NAME_NOT_FOUND`, `SLOT_OUT_OF_RANGE`, `BAD_NAME`.
 */
export function resolveTarget(
  store: RegistryStore,
  target: RecordTarget,
): { slot: number; record: StoredRecord | undefined } {
  const r = resolve(store, target);
  return { slot: r.slot, record: r.record };
}

function resolve(store: RegistryStore, target: RecordTarget): Resolved {
  return store.read((txn) => {
    const head = store.head(txn);
    let slot: number;
    if ("name" in target) {
      const s = store.slotOf(target.name, txn);
      if (s === undefined)
        throw new RegistryError("NAME_NOT_FOUND", `no record named ${JSON.stringify(target.name)} in the registry`, {
          name: target.name,
        });
      slot = s;
    } else {
      slot = store.checkSlot(target.slot);
    }
    return { head, slot, record: store.record(slot, txn), siblings: store.siblings(slot, txn) };
  });
}

/** A validated update that has not been written yet: the Update data, with the new root computed natively. */
export interface PlannedUpdate {
  readonly kind: UpdateKind;
  readonly slot: number;
  readonly name: string;
  readonly oldLeaf: Leaf;
  readonly newLeaf: Leaf;
  readonly siblings: Digest[];
  readonly oldRoot: Digest;
  /** compute_root(newLeaf, slot, siblings). */
  readonly newRoot: Digest;
  /** Head batch the plan was made against. */
  readonly batch: number;
  /**
   * Writes the update (one batch).
   * @throws RegistryError `CONCURRENT_UPDATE` if the registry changed since the plan.
   */
  commit(): UpdateResult;
}

function plan(
  store: RegistryStore,
  kind: UpdateKind,
  r: Resolved,
  name: string,
  oldLeaf: Leaf,
  newLeaf: Leaf,
  row: StoredRecord,
  newName: boolean,
  deltas: { live: number; deleted: number; nextSlot: number },
): PlannedUpdate {
  const digest = hashLeaf(newLeaf, store.config.leafMaxFields);
  const newRoot = computeRootFromDigest(digest, BigInt(r.slot), r.siblings);
  const rowBytes = encodeRecord(row);
  const base = {
    kind,
    slot: r.slot,
    name,
    oldLeaf,
    newLeaf,
    siblings: r.siblings,
    oldRoot: r.head.root,
    newRoot,
    batch: r.head.batch,
  };
  return {
    ...base,
    commit(): UpdateResult {
      const entry = store.commit({
        kind,
        expectBatch: r.head.batch,
        slot: r.slot,
        write: (t) => {
          const key = slotKey(r.slot);
          t.records.putSync(key, sealRow(key, rowBytes));
          if (newName) {
            const nk = nameBytes(name);
            t.names.putSync(Buffer.from(nk), nameEntry(nk, key));
          }
          return {
            slots: [r.slot],
            digests: digest,
            nextSlot: deltas.nextSlot,
            liveDelta: deltas.live,
            deletedDelta: deltas.deleted,
            records: 1,
          };
        },
      });
      if (!digestEquals(entry.root, newRoot)) {
        throw new RegistryError(
          "DB_CORRUPT",
          `the committed root of batch ${entry.batch} differs from the root computed from the path of slot ${r.slot}`,
          { batch: entry.batch },
        );
      }
      return { ...base, newRoot: entry.root, entry };
    },
  };
}

/**
 * Plans registering a new record at the next free slot (Empty → Occupied).
 * @throws RegistryError `NAME_EXISTS`, `NAME_DELETED`, `REGISTRY_FULL`, `BAD_NAME`, `NAME_NOT_NFC`,
 * `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function planInsert(store: RegistryStore, name: string, value: RecordValue): PlannedUpdate {
  const newLeaf = recordLeaf(name, value, store.config.leafMaxFields);
  requireNfcName(name);
  const r = store.read((txn) => {
    const head = store.head(txn);
    const existing = store.slotOf(name, txn);
    if (existing !== undefined) {
      const rec = store.record(existing, txn);
      if (rec?.state === RecordState.Deleted) {
        throw new RegistryError(
          "NAME_DELETED",
          `record ${JSON.stringify(name)} was deleted from slot ${existing}; a name keeps its slot, so restore it instead of inserting`,
          { name, slot: existing },
        );
      }
      throw new RegistryError(
        "NAME_EXISTS",
        `record ${JSON.stringify(name)} already exists at slot ${existing}; use replace to change its value`,
        { name, slot: existing },
      );
    }
    const slot = head.nextSlot;
    if (slot >= 2 ** store.config.depth) {
      throw new RegistryError("REGISTRY_FULL", `all 2^${store.config.depth} slots of the registry are assigned`, {
        depth: store.config.depth,
      });
    }
    return { head, slot, record: undefined, siblings: store.siblings(slot, txn) };
  });
  return plan(
    store,
    "insert",
    r,
    name,
    store.leafOf(undefined),
    newLeaf,
    { state: RecordState.Live, name, value },
    true,
    { live: 1, deleted: 0, nextSlot: r.head.nextSlot + 1 },
  );
}

/**
 * Plans changing the value of a live record (Occupied → Occupied, same identity).
 * @throws RegistryError `NAME_NOT_FOUND`, `SLOT_OUT_OF_RANGE`, `RECORD_ABSENT`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function planReplace(store: RegistryStore, target: RecordTarget, value: RecordValue): PlannedUpdate {
  const r = resolve(store, target);
  if (r.record === undefined || r.record.state !== RecordState.Live) {
    throw new RegistryError(
      "RECORD_ABSENT",
      `replace needs a live record; ${describeTarget(target, r.slot)} ${r.record === undefined ? "was never used" : "is deleted"}`,
      { slot: r.slot },
    );
  }
  const name = r.record.name;
  const newLeaf = recordLeaf(name, value, store.config.leafMaxFields);
  requireNfcName(name);
  return plan(
    store,
    "replace",
    r,
    name,
    store.leafOf(r.record),
    newLeaf,
    { state: RecordState.Live, name, value },
    false,
    { live: 0, deleted: 0, nextSlot: r.head.nextSlot },
  );
}

/**
 * Plans deleting a live record (Occupied → Tombstone); the slot keeps the name for a later restore.
 * @throws RegistryError `NAME_NOT_FOUND`, `SLOT_OUT_OF_RANGE`, `RECORD_ABSENT`.
 */
export function planDelete(store: RegistryStore, target: RecordTarget): PlannedUpdate {
  const r = resolve(store, target);
  if (r.record === undefined || r.record.state !== RecordState.Live) {
    throw new RegistryError(
      "RECORD_ABSENT",
      `delete needs a live record; ${describeTarget(target, r.slot)} ${r.record === undefined ? "was never used" : "is already deleted"}`,
      { slot: r.slot },
    );
  }
  return plan(
    store,
    "delete",
    r,
    r.record.name,
    store.leafOf(r.record),
    TOMBSTONE,
    { ...r.record, state: RecordState.Deleted },
    false,
    { live: -1, deleted: 1, nextSlot: r.head.nextSlot },
  );
}

/**
 * Plans bringing a deleted record back (Tombstone → Occupied) with `value`, or with its last
 * value when `value` is undefined.
 * @throws RegistryError `NAME_NOT_FOUND`, `SLOT_OUT_OF_RANGE`, `RECORD_LIVE`, `NOT_DELETED`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function planRestore(store: RegistryStore, target: RecordTarget, value?: RecordValue): PlannedUpdate {
  const r = resolve(store, target);
  if (r.record === undefined) {
    throw new RegistryError("NOT_DELETED", `restore needs a deleted record; slot ${r.slot} was never used`, {
      slot: r.slot,
    });
  }
  if (r.record.state === RecordState.Live) {
    throw new RegistryError(
      "RECORD_LIVE",
      `restore needs a deleted record; ${describeTarget(target, r.slot)} is live`,
      { slot: r.slot },
    );
  }
  const name = r.record.name;
  const v = value === undefined ? r.record.value : value;
  const newLeaf = recordLeaf(name, v, store.config.leafMaxFields);
  requireNfcName(name);
  return plan(store, "restore", r, name, TOMBSTONE, newLeaf, { state: RecordState.Live, name, value: v }, false, {
    live: 1,
    deleted: -1,
    nextSlot: r.head.nextSlot,
  });
}

/** Registers a new record (planInsert + commit). @throws as `planInsert`, and `CONCURRENT_UPDATE`. */
export function insertRecord(store: RegistryStore, name: string, value: RecordValue): UpdateResult {
  return planInsert(store, name, value).commit();
}

/** Changes a live record's value (planReplace + commit). @throws as `planReplace`, and `CONCURRENT_UPDATE`. */
export function replaceRecord(store: RegistryStore, target: RecordTarget, value: RecordValue): UpdateResult {
  return planReplace(store, target, value).commit();
}

/** Deletes a live record (planDelete + commit). @throws as `planDelete`, and `CONCURRENT_UPDATE`. */
export function deleteRecord(store: RegistryStore, target: RecordTarget): UpdateResult {
  return planDelete(store, target).commit();
}

/** Restores a deleted record (planRestore + commit). @throws as `planRestore`, and `CONCURRENT_UPDATE`. */
export function restoreRecord(store: RegistryStore, target: RecordTarget, value?: RecordValue): UpdateResult {
  return planRestore(store, target, value).commit();
}
