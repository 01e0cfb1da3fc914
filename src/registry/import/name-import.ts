/**
 * Import into a name-keyed registry. Into an empty registry the whole input is one bulk build
 * (name-bulk.ts: sorted by key, tree built in key-range partitions on the workers, rows appended
 * in key order, one batch). Into a registry that holds records, records are validated, hashed
 * to leaves on worker threads (the shared pipeline of import-pipeline.ts), keyed by their
 * names' Keccak-256 prefixes, sorted by key and committed in batches (one transaction and one
 * history entry per batch); the tree above each batch is recomputed with the batched compact
 * update of name-tree.ts against an in-memory index of the stored keys.
 *
 * A record whose name is already in the registry with the same live value is left as it is and
 * counted as `present`, so rerunning an interrupted or finished import finishes it with the root
 * of an uninterrupted run (an interrupted bulk import left the registry empty: it starts over).
 * Malformed records are reported with their line (`BAD_RECORD`, `BAD_NAME`, `BAD_VALUE`,
 * `VALUE_TOO_LARGE`, `NAME_EXISTS` for a name already in the input, or in the registry with
 * another value or deleted, and `KEY_COLLISION` for a name whose key another name holds).
 * `onError: "fail"` (default) checks the whole input first and writes nothing if any record is
 * malformed; `"skip"` leaves them out.
 */
import { RegistryError, type RegistryErrorCode } from "../errors.js";
import { HashPool, type PermutationChoice } from "../hashing/hash-pool.js";
import {
  checkEntry,
  commitHashedBatches,
  importSettings,
  type BatchImportReport,
  type ImportCommonOptions,
  type ImportIssue,
} from "./import-pipeline.js";
import { KeccakBatch } from "../../kernels/keccak-batch.js";
import type { ValueForm } from "../mapping.js";
import { keysOfDigests, mergeKeys } from "../hashing/name-keys.js";
import { lowerBound, updateCompact } from "../hashing/name-tree.js";
import { PackedBuilder, type PackedRecords } from "../hashing/packed.js";
import { RecordState, decodeRecord, encodeRecord, recordRowBytes, writeRecordRow } from "../store/record-codec.js";
import type { RecordSink, RecordSource } from "./sources/source.js";
import type { NameStore } from "../store/name-store.js";
import { bulkBuild } from "./name-bulk.js";

/** Options of `importNames` (record-leaf-v2): the shared import options, the hashers' permutation and the bulk build. */
export interface NameImportOptions extends ImportCommonOptions {
  /** Permutation of the hashers (default "auto": the WASM kernel when built). */
  readonly permutation?: PermutationChoice;
  /**
   * Into an empty registry, build the whole tree in one pass and commit it as one batch
   * (name-bulk.ts; default true). false: commit in batches of `batchSize` as for a registry
   * that already holds records. Both give the same rows and root.
   */
  readonly bulk?: boolean;
  /** Bulk import: records per key-range partition, one worker job each (default 16,384). */
  readonly partitionRecords?: number;
}

/** The result of `importNames`: the source, entries read, records imported, issues (with `KEY_COLLISION` conflicts), the root after the import and timings in ms. */
export type NameImportReport = BatchImportReport;

/**
 * Records per batch (one transaction) unless told otherwise. Keys are random, so every batch
 * touches pages all over the B-trees and LMDB copies each touched page (copy on write): fewer,
 * larger batches write less and leave a smaller file (at 100,000 records: 5 batches gave a 3.4×
 * larger data.mdb than one).
 */
export const DEFAULT_NAME_BATCH = 1_000_000;
const DEFAULT_BATCH = DEFAULT_NAME_BATCH;
/** Records per leaf-hashing job of a bulk import (small jobs keep both workers busy to the end). */
export const BULK_HASH_BATCH = 100_000;

/** Whether an import takes the bulk path: into an empty registry, unless `bulk: false`. */
function startsEmpty(store: NameStore, options: NameImportOptions): boolean {
  return (options.bulk ?? true) && store.head().records === 0;
}
const decoder = new TextDecoder();

class NameSink implements RecordSink {
  builder = new PackedBuilder();
  malformedCount = 0;
  constructor(
    private readonly leafMaxFields: number,
    private readonly report: (i: ImportIssue) => void,
  ) {}

  malformed(line: number, message: string, code: RegistryErrorCode = "BAD_RECORD"): void {
    this.malformedCount++;
    this.report({ line, code, message });
  }

  record(
    line: number,
    name: Uint8Array,
    ns: number,
    ne: number,
    form: ValueForm,
    value: Uint8Array,
    vs: number,
    ve: number,
  ): void {
    try {
      checkEntry(name, ns, ne, form, value, vs, ve, this.leafMaxFields);
    } catch (e) {
      if (!(e instanceof RegistryError)) throw e;
      this.malformed(line, e.message, e.code);
      return;
    }
    this.builder.add(line, name, ns, ne, form, value, vs, ve);
  }
}

function nameText(p: PackedRecords, i: number): string {
  const s = decoder.decode(p.names.subarray(p.nameOffsets[i]!, p.nameOffsets[i + 1]!));
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}

function sameName(p: PackedRecords, i: number, j: number): boolean {
  const a = p.names.subarray(p.nameOffsets[i]!, p.nameOffsets[i + 1]!);
  const b = p.names.subarray(p.nameOffsets[j]!, p.nameOffsets[j + 1]!);
  return a.length === b.length && a.every((x, k) => x === b[k]);
}

/** Keys of a packed batch (first `depth` bits of Keccak-256 of each name). */
function batchKeys(keccak: KeccakBatch, p: PackedRecords, depth: number, identities?: Uint8Array): Float64Array {
  return keysOfDigests(identities ?? keccak.hashPacked(p.names, p.nameOffsets, p.count), p.count, depth);
}

/**
 * Imports records into a name-keyed store.
 * @throws RegistryError `IMPORT_REJECTED` (fail mode; nothing written), `NAME_EXISTS` /
 * `KEY_COLLISION` (fail mode, a conflict the check pass could not see), `BAD_SOURCE`,
 * `HASH_FAILED`, `CONCURRENT_UPDATE`. Batches committed before a failure stay.
 */
export async function importNames(
  store: NameStore,
  makeSource: () => RecordSource,
  options: NameImportOptions = {},
): Promise<NameImportReport> {
  const started = performance.now();
  const { onError, batchSize, threads, report } = importSettings(
    options,
    startsEmpty(store, options) ? BULK_HASH_BATCH : DEFAULT_BATCH,
  );
  const { depth, leafMaxFields } = store.config;
  const keccak = new KeccakBatch();
  const startHead = store.head();
  let E = startHead.records > 0 ? store.keys() : new Float64Array(0);
  let n = E.length;
  const existingName = (key: number): string => store.leafRow(key)!.record.name;
  // keys stored before this import: a record there with the same name and live value is left as it is (`present`)
  const E0 = E;
  const n0 = n;
  const isPresent = (key: number, p: PackedRecords, i: number): boolean => {
    const at = lowerBound(E0, n0, key);
    if (at >= n0 || E0[at] !== key) return false;
    const stored = store.leafRow(key)!.record;
    if (stored.state !== RecordState.Live) return false;
    const want = new Uint8Array(
      recordRowBytes(
        p.nameOffsets[i + 1]! - p.nameOffsets[i]!,
        p.forms[i] as ValueForm,
        p.valueOffsets[i + 1]! - p.valueOffsets[i]!,
      ),
    );
    writeRecordRow(
      want,
      0,
      RecordState.Live,
      p.names,
      p.nameOffsets[i]!,
      p.nameOffsets[i + 1]!,
      p.forms[i] as ValueForm,
      p.values,
      p.valueOffsets[i]!,
      p.valueOffsets[i + 1]!,
    );
    return Buffer.from(encodeRecord(stored)).equals(want);
  };
  let present = 0;

  if (startsEmpty(store, options)) {
    const issues: ImportIssue[] = [];
    const note = (i: ImportIssue) => {
      if (issues.length < 100) issues.push(i);
      report(i);
    };
    const source = makeSource();
    const sink = new NameSink(leafMaxFields, note);
    const pool = new HashPool(threads, leafMaxFields, options.permutation ?? "auto");
    const progress = (imported: number, batches: number) =>
      options.onProgress?.({
        entries: source.entries,
        imported,
        malformed: sink.malformedCount,
        bytesRead: source.bytesRead,
        totalBytes: source.totalBytes,
        batches,
      });
    try {
      const r = await bulkBuild({
        store,
        source,
        sink,
        pool,
        keccak,
        batchSize,
        threads,
        report: note,
        ...(options.partitionRecords !== undefined ? { partitionRecords: options.partitionRecords } : {}),
        keysOf: (p, ids) => batchKeys(keccak, p, depth, ids),
        onRead: () => progress(0, 0),
        beforeTree: (conflicts) => {
          const bad = sink.malformedCount + conflicts;
          if (onError === "fail" && bad > 0) {
            const first = issues.reduce((a, b) => (b.line < a.line ? b : a));
            throw new RegistryError(
              "IMPORT_REJECTED",
              `${bad} malformed record${bad === 1 ? "" : "s"} in ${source.description} (first at line ${first.line}: ${first.code}: ${first.message}); nothing was imported (use --on-error skip to leave them out)`,
              { errors: [...issues].sort((a, b) => a.line - b.line), count: bad },
            );
          }
        },
      });
      const batches = r.entry === undefined ? 0 : 1;
      progress(r.imported, batches);
      return {
        source: source.description,
        entries: source.entries,
        imported: r.imported,
        malformed: sink.malformedCount + r.conflicts,
        present: 0,
        batches,
        firstBatch: r.entry?.batch ?? 0,
        lastBatch: r.entry?.batch ?? 0,
        root: r.entry?.root ?? startHead.root,
        threads,
        timings: { wallMs: performance.now() - started, ...r.timings, checkMs: 0 },
      };
    } finally {
      await pool.close();
    }
  }

  let checkMs = 0;
  if (onError === "fail") {
    const t0 = performance.now();
    const issues: ImportIssue[] = [];
    const note = (i: ImportIssue) => {
      if (issues.length < 100) issues.push(i);
      report(i);
    };
    const sink = new NameSink(leafMaxFields, note);
    const seen = new Map<number, { line: number; name: string }>();
    const source = makeSource();
    let conflicts = 0;
    for (;;) {
      const more = source.next(sink, batchSize);
      const p = sink.builder.take();
      const keys = batchKeys(keccak, p, depth);
      for (let i = 0; i < p.count; i++) {
        const key = keys[i]!;
        const name = decoder.decode(p.names.subarray(p.nameOffsets[i]!, p.nameOffsets[i + 1]!));
        const first = seen.get(key);
        if (first !== undefined) {
          conflicts++;
          note(
            first.name === name
              ? {
                  line: p.lines[i]!,
                  code: "NAME_EXISTS",
                  message: `duplicate name ${nameText(p, i)} (first at line ${first.line})`,
                }
              : {
                  line: p.lines[i]!,
                  code: "KEY_COLLISION",
                  message: `name ${nameText(p, i)} has the same key ${key} as ${JSON.stringify(first.name)} (line ${first.line}) at depth ${depth}`,
                },
          );
          continue;
        }
        if (isPresent(key, p, i)) {
          seen.set(key, { line: p.lines[i]!, name });
          continue;
        }
        const at = lowerBound(E, n, key);
        if (at < n && E[at] === key) {
          conflicts++;
          const other = existingName(key);
          note(
            other === name
              ? { line: p.lines[i]!, code: "NAME_EXISTS", message: `name ${nameText(p, i)} is already in the registry` }
              : {
                  line: p.lines[i]!,
                  code: "KEY_COLLISION",
                  message: `name ${nameText(p, i)} has the key ${key} of ${JSON.stringify(other)}, already in the registry at depth ${depth}`,
                },
          );
          continue;
        }
        seen.set(key, { line: p.lines[i]!, name });
      }
      if (!more) break;
    }
    const bad = sink.malformedCount + conflicts;
    if (bad > 0) {
      throw new RegistryError(
        "IMPORT_REJECTED",
        `${bad} malformed record${bad === 1 ? "" : "s"} in ${source.description} (first at line ${issues[0]!.line}: ${issues[0]!.code}: ${issues[0]!.message}); nothing was imported (use --on-error skip to leave them out)`,
        { errors: issues, count: bad },
      );
    }
    checkMs = performance.now() - t0;
  }

  const source = makeSource();
  const sink = new NameSink(leafMaxFields, report);
  const pool = new HashPool(threads, leafMaxFields, options.permutation ?? "auto");
  let conflicts = 0;
  const c = store.hasher();
  return await commitHashedBatches(
    {
      source,
      sink,
      pool,
      batchSize,
      threads,
      start: startHead,
      started,
      checkMs,
      counts: () => ({ malformed: sink.malformedCount + conflicts, present }),
      onProgress: options.onProgress,
    },
    ({ digests, packed: p, ids }, expectBatch) =>
      // Planned inside the batch's write transaction: a batch another process committed since
      // the last one (a server's epoch) is seen (its keys reloaded), never a CONCURRENT_UPDATE.
      store.writeTransaction(() => {
        if (store.head().batch !== expectBatch) {
          E = store.keys(true);
          n = E.length;
        }
        // keys, sorted; conflicts inside the batch and with the stored keys
        const keys = batchKeys(keccak, p, depth, ids);
        const order = Array.from({ length: p.count }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
        const kept: number[] = [];
        const conflict = (i: number, code: RegistryErrorCode, message: string) => {
          if (onError === "fail")
            throw new RegistryError(code, `line ${p.lines[i]}: ${message}; nothing of this batch was written`, {
              line: p.lines[i],
            });
          conflicts++;
          report({ line: p.lines[i]!, code, message });
        };
        for (let r = 0; r < order.length; r++) {
          const i = order[r]!;
          const key = keys[i]!;
          const prev = kept.length > 0 ? kept[kept.length - 1]! : -1;
          if (prev >= 0 && keys[prev] === key) {
            if (sameName(p, prev, i))
              conflict(i, "NAME_EXISTS", `duplicate name ${nameText(p, i)} (first at line ${p.lines[prev]})`);
            else
              conflict(
                i,
                "KEY_COLLISION",
                `name ${nameText(p, i)} has the same key ${key} as ${nameText(p, prev)} (line ${p.lines[prev]}) at depth ${depth}`,
              );
            continue;
          }
          if (isPresent(key, p, i)) {
            present++;
            continue;
          }
          const at = lowerBound(E, n, key);
          if (at < n && E[at] === key) {
            const other = existingName(key);
            const mine = decoder.decode(p.names.subarray(p.nameOffsets[i]!, p.nameOffsets[i + 1]!));
            if (other === mine) conflict(i, "NAME_EXISTS", `name ${nameText(p, i)} is already registered`);
            else
              conflict(
                i,
                "KEY_COLLISION",
                `name ${nameText(p, i)} has the key ${key} of ${JSON.stringify(other)}, already registered at depth ${depth}`,
              );
            continue;
          }
          kept.push(i);
        }
        const m = kept.length;
        const sortedKeys = new Float64Array(m);
        const sortedDigests = new Uint32Array(8 * m);
        for (let r = 0; r < m; r++) {
          const i = kept[r]!;
          sortedKeys[r] = keys[i]!;
          sortedDigests.set(digests.subarray(8 * i, 8 * i + 8), 8 * r);
        }
        let tree = 0;
        const entry = store.commit({
          kind: "import",
          expectBatch: undefined,
          write: (w, head) => {
            if (m === 0) {
              w.logChanges([]);
              return { root: head.root, newRecords: 0, liveDelta: 0, deletedDelta: 0, written: 0 };
            }
            let total = 0;
            for (const i of kept)
              total += recordRowBytes(
                p.nameOffsets[i + 1]! - p.nameOffsets[i]!,
                p.forms[i] as ValueForm,
                p.valueOffsets[i + 1]! - p.valueOffsets[i]!,
              );
            const rows = new Uint8Array(total);
            let at = 0;
            const offsets = new Uint32Array(m + 1);
            for (let r = 0; r < m; r++) {
              const i = kept[r]!;
              const start = at;
              offsets[r] = at;
              at = writeRecordRow(
                rows,
                at,
                RecordState.Live,
                p.names,
                p.nameOffsets[i]!,
                p.nameOffsets[i + 1]!,
                p.forms[i] as ValueForm,
                p.values,
                p.valueOffsets[i]!,
                p.valueOffsets[i + 1]!,
              );
              w.putLeaf(sortedKeys[r]!, rows.subarray(start, at), sortedDigests.subarray(8 * r, 8 * r + 8));
              offsets[r + 1] = at;
            }
            // The batch's change log: every record as an insert, in key order.
            w.logChanges(
              kept.map((_, r) => {
                const rec = decodeRecord(rows.subarray(offsets[r]!, offsets[r + 1]!));
                return { op: "insert" as const, name: rec.name, value: rec.value };
              }),
            );
            const t0 = performance.now();
            const u = updateCompact(depth, store.defaults, c, E, n, sortedKeys, sortedDigests, w.source);
            tree = performance.now() - t0;
            for (let b = 0; b < u.branches.count; b++)
              w.putBranch(
                u.branches.heights[b]!,
                u.branches.prefixes[b]!,
                u.branches.digests.subarray(8 * b, 8 * b + 8),
                false,
                u.branches.created[b] === 1,
              );
            return { root: u.root, newRecords: m, liveDelta: m, deletedDelta: 0, written: m };
          },
        });
        E = mergeKeys(E, n, sortedKeys);
        n = E.length;
        return { batch: entry.batch, root: entry.root, records: m, treeMs: tree };
      }),
  );
}
