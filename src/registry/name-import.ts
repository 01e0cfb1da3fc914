/**
 * Bulk import into a name-keyed registry: records are validated, hashed to leaves on worker
 * threads (hash-pool.ts), keyed by their names' Keccak-256 prefixes, sorted by key and committed
 * in batches (one transaction and one history entry per batch); the tree above each batch is
 * recomputed with the batched compact update of name-tree.ts against an in-memory index of the
 * stored keys.
 *
 * Malformed records are reported with their line (`BAD_RECORD`, `BAD_NAME`, `BAD_VALUE`,
 * `VALUE_TOO_LARGE`, `NAME_EXISTS` for a name already in the input or the registry, and
 * `KEY_COLLISION` for a name whose key another name holds). `onError: "fail"` (default) checks
 * the whole input first and writes nothing if any record is malformed; `"skip"` leaves them out.
 */
import { availableParallelism } from "node:os";
import type { Digest } from "../hash/digest.js";
import { RegistryError } from "./errors.js";
import { HashPool, type HashResult, type PermutationChoice } from "./hash-pool.js";
import { KeccakBatch } from "../kernels/keccak-batch.js";
import { ValueForm, checkFields, checkNameBytes, checkTextBytes } from "./mapping.js";
import { keyOfDigest } from "./name-key.js";
import { lowerBound, updateCompact } from "./name-tree.js";
import { PackedBuilder, type PackedRecords } from "./packed.js";
import { RecordState, recordRowBytes, writeRecordRow } from "./record-codec.js";
import type { RecordSink, RecordSource } from "./sources/source.js";
import type { ImportIssue, ImportProgress, ImportTimings } from "./import.js";
import type { NameStore } from "./name-store.js";

export interface NameImportOptions {
  readonly onError?: "skip" | "fail";
  readonly batchSize?: number;
  readonly threads?: number;
  readonly permutation?: PermutationChoice;
  readonly onProgress?: (p: ImportProgress) => void;
  readonly onMalformed?: (issue: ImportIssue) => void;
}

export interface NameImportReport {
  readonly source: string;
  readonly entries: number;
  readonly imported: number;
  readonly malformed: number;
  readonly batches: number;
  readonly firstBatch: number;
  readonly lastBatch: number;
  readonly root: Digest;
  readonly threads: number;
  readonly timings: ImportTimings;
}

/**
 * Records per batch (one transaction) unless told otherwise. Keys are random, so every batch
 * touches pages all over the B-trees and LMDB copies each touched page (copy on write): fewer,
 * larger batches write less and leave a smaller file (at 100,000 records: 5 batches gave a 3.4×
 * larger data.mdb than one).
 */
export const DEFAULT_NAME_BATCH = 1_000_000;
const DEFAULT_BATCH = DEFAULT_NAME_BATCH;
const decoder = new TextDecoder();

class NameSink implements RecordSink {
  builder = new PackedBuilder();
  malformedCount = 0;
  constructor(private readonly leafMaxFields: number, private readonly report: (i: ImportIssue) => void) {}

  malformed(line: number, message: string, code = "BAD_RECORD"): void {
    this.malformedCount++;
    this.report({ line, code, message });
  }

  record(line: number, name: Uint8Array, ns: number, ne: number, form: ValueForm, value: Uint8Array, vs: number, ve: number): void {
    try {
      checkNameBytes(name, ns, ne);
      if (form === ValueForm.Text) checkTextBytes(value, vs, ve);
      else if (form === ValueForm.Fields) {
        const view = new DataView(value.buffer, value.byteOffset + vs, ve - vs);
        const fields: number[] = [];
        for (let o = 0; o < ve - vs; o += 4) fields.push(view.getUint32(o, true));
        checkFields(fields, this.leafMaxFields);
      }
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
function batchKeys(keccak: KeccakBatch, p: PackedRecords, depth: number): Float64Array {
  const ids = keccak.hashPacked(p.names, p.nameOffsets, p.count);
  const keys = new Float64Array(p.count);
  for (let i = 0; i < p.count; i++) keys[i] = keyOfDigest(ids, depth, 32 * i);
  return keys;
}

/** Merges two ascending key arrays. */
function mergeKeys(a: Float64Array, n: number, b: Float64Array): Float64Array {
  const out = new Float64Array(n + b.length);
  let i = 0, j = 0, k = 0;
  while (i < n && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < n) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/**
 * Imports records into a name-keyed store.
 * @throws RegistryError `IMPORT_REJECTED` (fail mode; nothing written), `NAME_EXISTS` /
 * `KEY_COLLISION` (fail mode, a conflict the check pass could not see), `BAD_SOURCE`,
 * `HASH_FAILED`, `CONCURRENT_UPDATE`. Batches committed before a failure stay.
 */
export async function importNames(store: NameStore, makeSource: () => RecordSource, options: NameImportOptions = {}): Promise<NameImportReport> {
  const started = performance.now();
  const onError = options.onError ?? "fail";
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RegistryError("BAD_CONFIG", `batch size must be a positive integer, got ${batchSize}`);
  const threads = options.threads ?? Math.min(2, availableParallelism());
  if (!Number.isInteger(threads) || threads < 0 || threads > 64) throw new RegistryError("BAD_CONFIG", `threads must be an integer in [0, 64], got ${threads}`);
  const report = options.onMalformed ?? (() => {});
  const { depth, leafMaxFields } = store.config;
  const keccak = new KeccakBatch();
  const startHead = store.head();
  let E = startHead.records > 0 ? store.keys() : new Float64Array(0);
  let n = E.length;
  const existingName = (key: number): string => store.leafRow(key)!.record.name;

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
          note(first.name === name ? { line: p.lines[i]!, code: "NAME_EXISTS", message: `duplicate name ${nameText(p, i)} (first at line ${first.line})` } : { line: p.lines[i]!, code: "KEY_COLLISION", message: `name ${nameText(p, i)} has the same key ${key} as ${JSON.stringify(first.name)} (line ${first.line}) at depth ${depth}` });
          continue;
        }
        const at = lowerBound(E, n, key);
        if (at < n && E[at] === key) {
          conflicts++;
          const other = existingName(key);
          note(other === name ? { line: p.lines[i]!, code: "NAME_EXISTS", message: `name ${nameText(p, i)} is already in the registry` } : { line: p.lines[i]!, code: "KEY_COLLISION", message: `name ${nameText(p, i)} has the key ${key} of ${JSON.stringify(other)}, already in the registry at depth ${depth}` });
          continue;
        }
        seen.set(key, { line: p.lines[i]!, name });
      }
      if (!more) break;
    }
    const bad = sink.malformedCount + conflicts;
    if (bad > 0) {
      throw new RegistryError("IMPORT_REJECTED", `${bad} malformed record${bad === 1 ? "" : "s"} in ${source.description} (first at line ${issues[0]!.line}: ${issues[0]!.code}: ${issues[0]!.message}); nothing was imported (use --on-error skip to leave them out)`, { errors: issues, count: bad });
    }
    checkMs = performance.now() - t0;
  }

  const source = makeSource();
  const sink = new NameSink(leafMaxFields, report);
  const pool = new HashPool(threads, leafMaxFields, options.permutation ?? "auto");
  let parseMs = 0, hashMs = 0, waitMs = 0, treeMs = 0, writeMs = 0;
  let conflicts = 0;
  let expectBatch = startHead.batch;
  let imported = 0;
  let batches = 0;
  let firstBatch = 0;
  let root = startHead.root;
  let exhausted = false;
  const queue: Promise<HashResult>[] = [];
  const c = store.hasher();
  const progress = () => options.onProgress?.({ entries: source.entries, imported, malformed: sink.malformedCount + conflicts, bytesRead: source.bytesRead, totalBytes: source.totalBytes, batches });
  try {
    for (;;) {
      while (!exhausted && queue.length < Math.max(1, threads) + 1) {
        const t0 = performance.now();
        while (sink.builder.count < batchSize) {
          if (!source.next(sink, batchSize - sink.builder.count)) {
            exhausted = true;
            break;
          }
        }
        const packed = sink.builder.take();
        parseMs += performance.now() - t0;
        if (packed.count === 0) continue;
        queue.push(pool.hash(packed));
      }
      const job = queue.shift();
      if (job === undefined) break;
      const w0 = performance.now();
      const { digests, packed: p, ms } = await job;
      waitMs += performance.now() - w0;
      hashMs += ms;
      const c0 = performance.now();
      // keys, sorted; conflicts inside the batch and with the stored keys
      const keys = batchKeys(keccak, p, depth);
      const order = Array.from({ length: p.count }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
      const kept: number[] = [];
      const conflict = (i: number, code: string, message: string) => {
        if (onError === "fail") throw new RegistryError(code, `line ${p.lines[i]}: ${message}; nothing of this batch was written`, { line: p.lines[i] });
        conflicts++;
        report({ line: p.lines[i]!, code, message });
      };
      for (let r = 0; r < order.length; r++) {
        const i = order[r]!;
        const key = keys[i]!;
        const prev = kept.length > 0 ? kept[kept.length - 1]! : -1;
        if (prev >= 0 && keys[prev] === key) {
          if (sameName(p, prev, i)) conflict(i, "NAME_EXISTS", `duplicate name ${nameText(p, i)} (first at line ${p.lines[prev]})`);
          else conflict(i, "KEY_COLLISION", `name ${nameText(p, i)} has the same key ${key} as ${nameText(p, prev)} (line ${p.lines[prev]}) at depth ${depth}`);
          continue;
        }
        const at = lowerBound(E, n, key);
        if (at < n && E[at] === key) {
          const other = existingName(key);
          const mine = decoder.decode(p.names.subarray(p.nameOffsets[i]!, p.nameOffsets[i + 1]!));
          if (other === mine) conflict(i, "NAME_EXISTS", `name ${nameText(p, i)} is already registered`);
          else conflict(i, "KEY_COLLISION", `name ${nameText(p, i)} has the key ${key} of ${JSON.stringify(other)}, already registered at depth ${depth}`);
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
        expectBatch,
        write: (w, head) => {
          if (m === 0) return { root: head.root, newRecords: 0, liveDelta: 0, deletedDelta: 0, written: 0 };
          let total = 0;
          for (const i of kept) total += recordRowBytes(p.nameOffsets[i + 1]! - p.nameOffsets[i]!, p.forms[i] as ValueForm, p.valueOffsets[i + 1]! - p.valueOffsets[i]!);
          const rows = new Uint8Array(total);
          let at = 0;
          for (let r = 0; r < m; r++) {
            const i = kept[r]!;
            const start = at;
            at = writeRecordRow(rows, at, RecordState.Live, p.names, p.nameOffsets[i]!, p.nameOffsets[i + 1]!, p.forms[i] as ValueForm, p.values, p.valueOffsets[i]!, p.valueOffsets[i + 1]!);
            w.putLeaf(sortedKeys[r]!, rows.subarray(start, at), sortedDigests.subarray(8 * r, 8 * r + 8));
          }
          const t0 = performance.now();
          const u = updateCompact(depth, store.defaults, c, E, n, sortedKeys, sortedDigests, w.source);
          tree = performance.now() - t0;
          for (let b = 0; b < u.branches.count; b++) w.putBranch(u.branches.heights[b]!, u.branches.prefixes[b]!, u.branches.digests.subarray(8 * b, 8 * b + 8));
          return { root: u.root, newRecords: m, liveDelta: m, deletedDelta: 0, written: m };
        },
      });
      E = mergeKeys(E, n, sortedKeys);
      n = E.length;
      imported += m;
      const dt = performance.now() - c0;
      treeMs += tree;
      writeMs += dt - tree;
      expectBatch = entry.batch;
      if (batches === 0) firstBatch = entry.batch;
      batches++;
      root = entry.root;
      progress();
    }
  } finally {
    await pool.close();
  }
  progress();
  return {
    source: source.description,
    entries: source.entries,
    imported,
    malformed: sink.malformedCount + conflicts,
    batches,
    firstBatch,
    lastBatch: batches === 0 ? 0 : expectBatch,
    root,
    threads,
    timings: { wallMs: performance.now() - started, parseMs, hashMs, waitMs, treeMs, writeMs, checkMs },
  };
}
