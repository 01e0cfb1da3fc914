/**
 * One epoch of writes applied to a name-keyed registry as one batch (docs/http.md "How it runs").
 *
 * The epoch is planned inside its write transaction (`NameStore.writeTransaction`), against the
 * head as that transaction sees it, so a batch another process committed before (a CLI write) is
 * simply the state the epoch starts from: never a conflict. Its writes are checked in arrival
 * order against the state the earlier writes of the epoch left (an overlay by key): a write that
 * does not fit that state (`NAME_DELETED`, `RECORD_ABSENT`, `KEY_COLLISION`, …) fails alone, the
 * others commit. The writes that succeed are the batch's change log, in arrival order (a write's
 * position in the batch is its index there). Each changed key's final leaf is hashed once and the
 * tree above all of them is recomputed with one batched compact update per level (`updateCompact`,
 * as the batched import does), against an in-memory index of the stored keys that is reloaded
 * only when another process committed meanwhile. An epoch whose writes all fail commits nothing.
 */
import { RegistryError } from "../errors.js";
import { nameBytes, valuePayloadWith, type RecordValue } from "../mapping.js";
import { requireNfcName } from "../name-form.js";
import { collisionError, type NameUpdateKind } from "../name-operations.js";
import { lowerBound, updateCompact } from "../hashing/name-tree.js";
import { checkedNameKeys, mergeKeys } from "../hashing/name-keys.js";
import { LeafHasher } from "../hashing/leaf-hasher.js";
import { PackedBuilder } from "../hashing/packed.js";
import { defaultPermutation } from "../hashing/permutation.js";
import {
  RECORD_NAME_START,
  RecordState,
  encodeRecord,
  recordRowParts,
  valueParts,
  type StoredRecord,
} from "../store/record-codec.js";
import type { LoggedChange } from "../store/change-log.js";
import type { NameHead, NameHistoryEntry, NameStore } from "../store/name-store.js";

/** A write as clients send it: `put` inserts a new name or replaces a live one. */
export type EpochWriteOp = "put" | "delete" | "restore";

/** One write of an epoch. */
export interface EpochWrite {
  readonly op: EpochWriteOp;
  readonly name: string;
  /** put: required; restore: optional (default the last value); delete: none. */
  readonly value?: RecordValue | undefined;
  /**
   * The name's key when the write was already checked (`checkEpochWrite` returns it): the epoch
   * then neither checks it again nor hashes the name again.
   */
  readonly key?: number | undefined;
  /**
   * Whether the write was already checked without its key (`checkEpochWriteForm`, the sequencer's
   * serving thread): the epoch then does not check it again, and hashes its name together with the
   * epoch's other such names in one batched Keccak-256 call (`nameKeys`) instead of one by one.
   */
  readonly checked?: boolean | undefined;
  /**
   * The leaf digest of the record a put or a restore with a value writes (`hashLeaf(recordLeaf(
   * name, value))`), when the caller holds it from data it verified (a mirror: the new leaf its
   * block proof was checked against); the epoch then does not hash that record. Given with a key.
   */
  readonly digest?: Uint32Array | undefined;
}

/** What became of one write of an epoch. */
export type EpochResult =
  | {
      readonly ok: true;
      /** The update it made (a put is an insert or a replace). */
      readonly op: NameUpdateKind;
      /** Its 0-based index in the batch's change log. */
      readonly position: number;
    }
  | { readonly ok: false; readonly error: RegistryError };

/** The outcome of an epoch: its batch (undefined when nothing committed) and each write's result, in order. */
export interface EpochOutcome {
  readonly entry: NameHistoryEntry | undefined;
  /** The head the epoch was planned against. */
  readonly before: NameHead;
  readonly results: readonly EpochResult[];
}

/**
 * The stored keys, ascending, as of a batch: the index the tree update needs (`updateCompact`'s
 * `existing`). Kept between epochs; reloaded when the head is not the batch it is of.
 */
export interface KeyIndex {
  batch: number;
  keys: Float64Array;
}

/** A stand-in for a text's digest where only the value's bounds are checked. */
const NO_DIGEST = new Uint8Array(32);
const noDigest = () => NO_DIGEST;

/**
 * Checks that a write is well formed before it is queued (its name, NFC form and value bounds):
 * what can be refused without the registry's state.
 * @returns the name's key.
 * @throws RegistryError `BAD_NAME`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function checkEpochWrite(store: NameStore, w: EpochWrite): number {
  const key = store.keyOf(w.name);
  checkBeyondName(store, w);
  return key;
}

/**
 * `checkEpochWrite` without the name's key: the same checks in the same order (the name's bytes
 * as the key would encode them, then its NFC form and the value), the name not hashed (the epoch
 * hashes the names of writes marked `checked` in one batched call).
 * @throws RegistryError as `checkEpochWrite`.
 */
export function checkEpochWriteForm(store: NameStore, w: EpochWrite): void {
  nameBytes(w.name);
  checkBeyondName(store, w);
}

/** The checks of a write after its name's bytes: NFC form (not for a delete) and value bounds. */
function checkBeyondName(store: NameStore, w: EpochWrite): void {
  if (w.op === "delete") return; // a record under a name not in NFC (written before names were checked) can be deleted
  requireNfcName(w.name);
  // the value's bounds and form, without its digest (the epoch hashes the texts together)
  if (w.value !== undefined) valuePayloadWith(w.value, store.config.leafMaxFields, noDigest);
  else if (w.op === "put") throw new RegistryError("BAD_VALUE", "put needs a value");
}

/**
 * The keys of the writes marked `checked` without a key (their names' bytes checked before they
 * were queued), hashed in one batched call (NaN for the others); undefined when there are none.
 */
function checkedKeys(writes: readonly EpochWrite[], depth: number): Float64Array | undefined {
  const at: number[] = [];
  writes.forEach((w, i) => {
    if (w.checked === true && w.key === undefined) at.push(i);
  });
  if (at.length === 0) return undefined;
  const keys = checkedNameKeys(
    at.map((i) => writes[i]!.name),
    depth,
  );
  const out = new Float64Array(writes.length).fill(Number.NaN);
  at.forEach((i, j) => (out[i] = keys[j]!));
  return out;
}

/** One leaf hasher per leaf bound (batched Keccak-256 and Poseidon2, as the import hashes). */
const HASHERS = new Map<number, LeafHasher>();
const utf8 = new TextEncoder();

/** The thread's leaf hasher of a leaf bound (made once). */
export function leafHasherOf(leafMaxFields: number): LeafHasher {
  let h = HASHERS.get(leafMaxFields);
  if (h === undefined) {
    h = new LeafHasher(leafMaxFields, defaultPermutation());
    HASHERS.set(leafMaxFields, h);
  }
  return h;
}

/**
 * Leaf digests of live records, 8 words each, hashed as one batch (equal to
 * `hashLeaf(recordLeaf(name, value))` record by record).
 */
export function liveDigests(records: readonly StoredRecord[], leafMaxFields: number): Uint32Array {
  const h = leafHasherOf(leafMaxFields);
  const b = new PackedBuilder();
  records.forEach((r, i) => {
    const name = utf8.encode(r.name);
    const { form, bytes } = valueParts(r.value);
    b.add(i, name, 0, name.length, form, bytes, 0, bytes.length);
  });
  return h.hash(b.take());
}

/** `liveDigests` from the records' rows (`encodeRecord`), not encoded again. */
export function liveRowDigests(rows: readonly Uint8Array[], leafMaxFields: number): Uint32Array {
  const h = leafHasherOf(leafMaxFields);
  const b = new PackedBuilder();
  rows.forEach((row, i) => {
    const { nameEnd, form, valueStart } = recordRowParts(row);
    b.add(i, row, RECORD_NAME_START, nameEnd, form, row, valueStart, row.length);
  });
  return h.hash(b.take());
}

function isStored(keys: Float64Array, key: number): boolean {
  const at = lowerBound(keys, keys.length, key);
  return at < keys.length && keys[at] === key;
}

interface Slot {
  readonly before: StoredRecord | undefined;
  now: StoredRecord | undefined;
  /** The leaf digest of `now` when its write gave it (`EpochWrite.digest`), else undefined. */
  digest: Uint32Array | undefined;
}

/** Plans one write against the slot's current record; returns the update and the record after it. */
function planOne(store: NameStore, w: EpochWrite, key: number, slot: Slot): { op: NameUpdateKind; rec: StoredRecord } {
  const rec = slot.now;
  if (rec !== undefined && rec.name !== w.name) throw collisionError(store, w.name, key, rec.name);
  // the name as a message shows it, written only for a refusal
  const shown = (): string => JSON.stringify(w.name);
  if (w.op === "put") {
    if (rec?.state === RecordState.Deleted)
      throw new RegistryError(
        "NAME_DELETED",
        `${shown()} is deleted; restore it with POST /v1/records/{name}/restore (a name keeps its key)`,
        { name: w.name },
      );
    return {
      op: rec === undefined ? "insert" : "replace",
      rec: { state: RecordState.Live, name: w.name, value: w.value! },
    };
  }
  if (w.op === "delete") {
    if (rec?.state !== RecordState.Live)
      throw new RegistryError(
        "RECORD_ABSENT",
        `delete needs a live record; ${shown()} ${rec ? "is already deleted" : "was never registered"}`,
        { name: w.name },
      );
    return { op: "delete", rec: { ...rec, state: RecordState.Deleted } };
  }
  if (rec === undefined)
    throw new RegistryError("NOT_DELETED", `restore needs a deleted record; ${shown()} was never registered`, {
      name: w.name,
    });
  if (rec.state === RecordState.Live)
    throw new RegistryError("RECORD_LIVE", `restore needs a deleted record; ${shown()} is live`, { name: w.name });
  return { op: "restore", rec: { state: RecordState.Live, name: w.name, value: w.value ?? rec.value } };
}

/** Options of `applyEpoch`. */
export interface ApplyEpochOptions {
  /**
   * Runs in the same write transaction after the batch (or alone when nothing committed): what
   * must commit with the epoch (the sequencer's tables); when it throws, nothing of the epoch is
   * written.
   */
  readonly inside?: (outcome: EpochOutcome) => void;
  /** The batch's kind in the history (default `"epoch"`; a mirror's batches are `"block"`). */
  readonly kind?: string;
}

/**
 * Applies an epoch's writes, in order, as one batch (nothing when every write fails or there are
 * none).
 * @param index the stored keys; reloaded here when stale and advanced to the new batch only once
 *   the transaction has committed.
 * @throws RegistryError `DB_CORRUPT` and other faults of the store (nothing is then written);
 *   a write's own refusal is its result, never thrown.
 */
export function applyEpoch(
  store: NameStore,
  index: KeyIndex,
  writes: readonly EpochWrite[],
  options: ApplyEpochOptions = {},
): EpochOutcome {
  const inside = options.inside ?? (() => {});
  const kind = options.kind ?? "epoch";
  let fresh: KeyIndex | undefined;
  const batchedKeys = checkedKeys(writes, store.config.depth);
  const outcome = store.writeTransaction((): EpochOutcome => {
    const head = store.head();
    const results: EpochResult[] = [];
    const slots = new Map<number, Slot>();
    const changes: LoggedChange[] = [];
    // with a current key index, a key not in it has no row to look up
    const current = index.batch === head.batch ? index.keys : undefined;
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i]!;
      try {
        const batched = batchedKeys?.[i];
        const key = w.key ?? (batched !== undefined && !Number.isNaN(batched) ? batched : checkEpochWrite(store, w));
        let slot = slots.get(key);
        if (slot === undefined) {
          const row = current === undefined || isStored(current, key) ? store.leafRow(key)?.record : undefined;
          slot = { before: row, now: row, digest: undefined };
          slots.set(key, slot);
        }
        const { op, rec } = planOne(store, w, key, slot);
        slot.now = rec;
        // a given digest is of the record with the write's own value (a restore without one takes the last)
        slot.digest = op !== "delete" && w.key !== undefined && w.value !== undefined ? w.digest : undefined;
        changes.push(op === "delete" ? { op, name: w.name } : { op, name: w.name, value: rec.value });
        results.push({ ok: true, op, position: changes.length - 1 });
      } catch (e) {
        if (!(e instanceof RegistryError)) throw e;
        results.push({ ok: false, error: e });
      }
    }
    if (changes.length === 0) {
      const o = { entry: undefined, before: head, results };
      inside(o);
      return o;
    }
    const keys = current ?? store.keys(true);
    const B = store.config.leafMaxFields;
    const changed = [...slots.entries()].filter(([, s]) => s.now !== s.before).sort((a, b) => a[0] - b[0]);
    const sortedKeys = new Float64Array(changed.length);
    const digests = new Uint32Array(8 * changed.length);
    const rows: Uint8Array[] = [];
    const added: number[] = [];
    let newRecords = 0,
      liveDelta = 0,
      deletedDelta = 0;
    changed.forEach(([key, s], i) => {
      const rec = s.now!;
      sortedKeys[i] = key;
      if (rec.state === RecordState.Deleted) digests.set(store.tombstoneDigest, 8 * i);
      else if (s.digest !== undefined) digests.set(s.digest, 8 * i);
      rows.push(encodeRecord(rec));
      if (s.before === undefined) {
        newRecords++;
        added.push(key);
      }
      liveDelta += (rec.state === RecordState.Live ? 1 : 0) - (s.before?.state === RecordState.Live ? 1 : 0);
      deletedDelta += (rec.state === RecordState.Deleted ? 1 : 0) - (s.before?.state === RecordState.Deleted ? 1 : 0);
    });
    const live: number[] = [];
    changed.forEach(([, s], i) => {
      if (s.now!.state === RecordState.Live && s.digest === undefined) live.push(i);
    });
    const liveHashed = liveRowDigests(
      live.map((i) => rows[i]!),
      B,
    );
    live.forEach((i, j) => digests.set(liveHashed.subarray(8 * j, 8 * j + 8), 8 * i));
    const entry = store.commit({
      kind,
      expectBatch: head.batch,
      write: (w) => {
        for (let i = 0; i < changed.length; i++)
          w.putLeaf(
            sortedKeys[i]!,
            rows[i]!,
            digests.subarray(8 * i, 8 * i + 8),
            false,
            changed[i]![1].before === undefined,
          );
        w.logChanges(changes);
        const u = updateCompact(
          store.config.depth,
          store.defaults,
          store.hasher(),
          keys,
          keys.length,
          sortedKeys,
          digests,
          w.source,
        );
        const { heights, prefixes, digests: bd, created } = u.branches;
        for (let b = 0; b < u.branches.count; b++)
          w.putBranch(heights[b]!, prefixes[b]!, bd.subarray(8 * b, 8 * b + 8), false, created[b] === 1);
        return { root: u.root, newRecords, liveDelta, deletedDelta, written: changed.length };
      },
    });
    fresh = { batch: entry.batch, keys: mergeKeys(keys, keys.length, Float64Array.from(added).sort()) };
    const o = { entry, before: head, results };
    inside(o);
    return o;
  });
  if (fresh !== undefined) {
    index.batch = fresh.batch;
    index.keys = fresh.keys;
  }
  return outcome;
}
