/**
 * Bulk import into an empty name-keyed registry (docs/registry.md §"Compact storage"): one pass
 * over the input builds the whole compact tree and writes it in key order.
 *
 * 1. Records are parsed and validated, hashed to leaves on the workers (hash-pool.ts), keyed by
 *    their names' Keccak-256 prefixes and kept in memory as their packed batches.
 * 2. The keys are sorted (stable radix sort: for equal keys the first record of the input comes
 *    first); a name that repeats an earlier one (`NAME_EXISTS`) or takes its key
 *    (`KEY_COLLISION`) is reported and left out.
 * 3. The key space is cut into 2^T ranges of about `PARTITION_RECORDS` records each; the workers
 *    compute each range's compact subtree (`subtreeCompact`, level by level with batched
 *    Poseidon2), and the calling thread joins the range tops into the root.
 * 4. One write transaction appends the leaf rows in key order and the branch rows in (height,
 *    prefix) order (LMDB append mode: no page is searched, split half-empty or copied), then the
 *    head and the history entry.
 *
 * Nothing is written before step 4, so `onError: "fail"` needs no separate check pass, and an
 * interrupted import leaves the registry empty (the next run starts over). The tree and rows are
 * those of the batched path (`importNames` with `bulk: false`); the differential tests check
 * that roots, rows and proofs are equal.
 *
 * Memory: the packed records (names, values), 8 leaf-digest words, a key and a few indices per
 * record, then the branches (≈ 41 bytes each): about 220 bytes per record of the npm map.
 */
import { RegistryError } from "../errors.js";
import type { HashPool } from "../hashing/hash-pool.js";
import { hashedBatches, type ImportIssue, type LoopTimes } from "./import-pipeline.js";
import type { KeccakBatch } from "../../kernels/keccak-batch.js";
import type { ValueForm } from "../mapping.js";
import {
  NO_STORED_ROWS,
  packDefaults,
  subtreeCompact,
  updateCompact,
  type SubtreeResult,
} from "../hashing/name-tree.js";
import type { PackedRecords, PackedBuilder } from "../hashing/packed.js";
import { RecordState, recordRowBytes, writeRecordRow } from "../store/record-codec.js";
import type { RecordSink, RecordSource } from "./sources/source.js";
import type { NameHistoryEntry, NameStore } from "../store/name-store.js";

/** Records per key-range partition (one worker job). */
export const PARTITION_RECORDS = 16_384;

const decoder = new TextDecoder();

/** What `bulkBuild` reports back to the importer. */
export interface BulkResult {
  readonly entry: NameHistoryEntry | undefined;
  readonly imported: number;
  readonly conflicts: number;
  readonly timings: {
    parseMs: number;
    hashMs: number;
    waitMs: number;
    sortMs: number;
    treeMs: number;
    writeMs: number;
  };
}

/** The inputs `bulkBuild` shares with the batched importer. */
export interface BulkInputs {
  readonly store: NameStore;
  readonly source: RecordSource;
  readonly sink: RecordSink & { readonly builder: PackedBuilder };
  readonly pool: HashPool;
  readonly keccak: KeccakBatch;
  readonly batchSize: number;
  readonly threads: number;
  /** Records per key-range partition (default `PARTITION_RECORDS`). */
  readonly partitionRecords?: number;
  readonly report: (issue: ImportIssue) => void;
  /** Called with the number of conflicts once all records are read and sorted; throwing aborts with nothing written. */
  readonly beforeTree: (conflicts: number) => void;
  /** Keys of a packed batch. */
  readonly keysOf: (p: PackedRecords, ids: Uint8Array) => Float64Array;
  readonly onRead?: () => void;
}

/**
 * Stable LSD radix sort of record indices by key (keys < 2^48): four passes of 12 bits.
 * @returns indices 0..n−1 ordered by key, equal keys in index order.
 */
export function sortByKey(keys: Float64Array): Uint32Array {
  const n = keys.length;
  const lo = new Uint32Array(n);
  const hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    const h = Math.floor(k / 16_777_216);
    hi[i] = h;
    lo[i] = k - h * 16_777_216;
  }
  let a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  let b = new Uint32Array(n);
  const count = new Uint32Array(4096);
  for (let pass = 0; pass < 4; pass++) {
    const src = pass < 2 ? lo : hi;
    const shift = pass % 2 === 0 ? 0 : 12;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(src[a[i]!]! >>> shift) & 4095]!++;
    let sum = 0;
    for (let d = 0; d < 4096; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const x = a[i]!;
      b[count[(src[x]! >>> shift) & 4095]!++] = x;
    }
    const t = a;
    a = b;
    b = t;
  }
  return a;
}

/** Reads, hashes, sorts and commits every record of the source in one batch. */
export async function bulkBuild(inp: BulkInputs): Promise<BulkResult> {
  const { store, source, sink, pool, batchSize, threads, report } = inp;
  const { depth } = store.config;
  const times: LoopTimes = { parseMs: 0, hashMs: 0, waitMs: 0 };

  // 1. read and hash
  const batches: PackedRecords[] = [];
  const digestsOf: Uint32Array[] = [];
  const keysOf: Float64Array[] = [];
  for await (const { digests, packed, ids } of hashedBatches(source, sink, pool, batchSize, threads, times)) {
    const t0 = performance.now();
    keysOf.push(inp.keysOf(packed, ids));
    times.parseMs += performance.now() - t0;
    batches.push(packed);
    digestsOf.push(digests);
    inp.onRead?.();
  }
  let total = 0;
  for (const p of batches) total += p.count;
  if (total === 0)
    return { entry: undefined, imported: 0, conflicts: 0, timings: { ...times, sortMs: 0, treeMs: 0, writeMs: 0 } };

  // 2. sort; conflicts. Record g is record g % batchSize of batch ⌊g / batchSize⌋ (every batch but the last is full).
  const s0 = performance.now();
  const keys = new Float64Array(total);
  for (let b = 0, at = 0; b < batches.length; b++) {
    keys.set(keysOf[b]!, at);
    at += batches[b]!.count;
  }
  keysOf.length = 0;
  const order = sortByKey(keys);
  const nameOf = (g: number): Uint8Array => {
    const p = batches[Math.floor(g / batchSize)]!;
    const i = g % batchSize;
    return p.names.subarray(p.nameOffsets[i]!, p.nameOffsets[i + 1]!);
  };
  const lineOf = (g: number): number => batches[Math.floor(g / batchSize)]!.lines[g % batchSize]!;
  const shown = (g: number): string => {
    const s = decoder.decode(nameOf(g));
    return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
  };
  const issues: ImportIssue[] = [];
  let m = 0;
  for (let r = 0; r < total; r++) {
    const g = order[r]!;
    if (m > 0) {
      const prev = order[m - 1]!;
      if (keys[prev] === keys[g]) {
        const a = nameOf(prev);
        const b = nameOf(g);
        const same = a.length === b.length && a.every((x, k) => x === b[k]);
        issues.push(
          same
            ? {
                line: lineOf(g),
                code: "NAME_EXISTS",
                message: `duplicate name ${shown(g)} (first at line ${lineOf(prev)})`,
              }
            : {
                line: lineOf(g),
                code: "KEY_COLLISION",
                message: `name ${shown(g)} has the same key ${keys[g]} as ${shown(prev)} (line ${lineOf(prev)}) at depth ${depth}`,
              },
        );
        continue;
      }
    }
    order[m++] = g;
  }
  issues.sort((x, y) => x.line - y.line);
  for (const i of issues) report(i);
  inp.beforeTree(issues.length);
  const sortMs = performance.now() - s0;

  // 3 and 4 in one transaction: the partitions' trees on the workers while this thread appends
  // the leaf rows in key order, then the range tops joined here and the branch rows appended in
  // (height, prefix) order
  const t0 = performance.now();
  const T = Math.max(0, Math.min(depth - 1, Math.ceil(Math.log2(m / (inp.partitionRecords ?? PARTITION_RECORDS)))));
  const H = depth - T;
  const span = 2 ** H;
  const defaultsH = packDefaults(store.defaults, H);
  const digestOf = (g: number): Uint32Array =>
    digestsOf[Math.floor(g / batchSize)]!.subarray(8 * (g % batchSize), 8 * (g % batchSize) + 8);
  let writeMs = 0;
  let treeMs = 0;
  const entry = await store.commitAsync({
    kind: "import",
    expectBatch: store.head().batch,
    write: async (w, head) => {
      if (head.records !== 0)
        throw new RegistryError(
          "CONCURRENT_UPDATE",
          "the registry received records while the import was prepared; nothing was written",
        );
      let row = new Uint8Array(1024);
      const writeLeaves = (from: number, to: number) => {
        const c0 = performance.now();
        for (let j = from; j < to; j++) {
          const g = order[j]!;
          const p = batches[Math.floor(g / batchSize)]!;
          const i = g % batchSize;
          const form = p.forms[i] as ValueForm;
          const need = recordRowBytes(
            p.nameOffsets[i + 1]! - p.nameOffsets[i]!,
            form,
            p.valueOffsets[i + 1]! - p.valueOffsets[i]!,
          );
          if (need > row.length) row = new Uint8Array(2 * need);
          const end = writeRecordRow(
            row,
            0,
            RecordState.Live,
            p.names,
            p.nameOffsets[i]!,
            p.nameOffsets[i + 1]!,
            form,
            p.values,
            p.valueOffsets[i]!,
            p.valueOffsets[i + 1]!,
          );
          w.putLeaf(keys[g]!, row.subarray(0, end), digestOf(g), true);
        }
        writeMs += performance.now() - c0;
      };
      // The workers take a range while fewer than `window` are at them; otherwise this thread
      // computes the range itself (it would only wait), then lets the workers' replies in.
      const parts: (SubtreeResult | undefined)[] = [];
      const partBase: number[] = [];
      const window = 2 * threads;
      let active = 0;
      let failure: unknown;
      let wake: (() => void) | undefined;
      const c = store.hasher();
      let r = 0;
      while (r < m) {
        const base = Math.floor(keys[order[r]!]! / span);
        let end = r + 1;
        const limit = (base + 1) * span;
        while (end < m && keys[order[end]!]! < limit) end++;
        const rel = new Float64Array(end - r);
        const dg = new Uint32Array(8 * (end - r));
        for (let j = r; j < end; j++) {
          const g = order[j]!;
          rel[j - r] = keys[g]! - base * span;
          dg.set(digestOf(g), 8 * (j - r));
        }
        const index = parts.length;
        parts.push(undefined);
        partBase.push(base);
        const job = { height: H, base, keys: rel, digests: dg, defaults: defaultsH };
        if (active < window) {
          active++;
          pool.subtree({ ...job, defaults: defaultsH.slice() }).then(
            (res) => {
              parts[index] = res;
              active--;
              wake?.();
            },
            (e: unknown) => {
              failure ??= e;
              active--;
              wake?.();
            },
          );
        } else {
          parts[index] = subtreeCompact(job, c);
        }
        writeLeaves(r, end);
        r = end;
        if (failure !== undefined) throw failure;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const w0 = performance.now();
      while (active > 0) await new Promise<void>((resolve) => (wake = resolve));
      times.waitMs += performance.now() - w0;
      if (failure !== undefined) throw failure;
      const topKeys = Float64Array.from(partBase);
      const topDigests = new Uint32Array(8 * parts.length);
      parts.forEach((p, i) => topDigests.set(p!.root, 8 * i));
      const top = updateCompact(
        T,
        store.defaults.slice(H),
        store.hasher(),
        new Float64Array(0),
        0,
        topKeys,
        topDigests,
        NO_STORED_ROWS,
      );
      for (const p of parts) times.hashMs += p!.ms;
      treeMs = performance.now() - t0 - writeMs;
      const c0 = performance.now();
      const at = parts.map(() => 0);
      for (let h = 1; h <= H; h++) {
        for (let q = 0; q < parts.length; q++) {
          const p = parts[q]!;
          let k = at[q]!;
          while (k < p.heights.length && p.heights[k] === h) {
            w.putBranch(h, p.prefixes[k]!, p.digests.subarray(8 * k, 8 * k + 8), true);
            k++;
          }
          at[q] = k;
        }
      }
      for (let k = 0; k < top.branches.count; k++) {
        w.putBranch(
          H + top.branches.heights[k]!,
          top.branches.prefixes[k]!,
          top.branches.digests.subarray(8 * k, 8 * k + 8),
          true,
        );
      }
      writeMs += performance.now() - c0;
      // The batch's change log: the inserts of the rows it created, in key order (not a second copy of the records).
      w.logCreatedRows(m);
      return { root: top.root, newRecords: m, liveDelta: m, deletedDelta: 0, written: m };
    },
  });
  writeMs = performance.now() - t0 - treeMs;
  return { entry, imported: m, conflicts: issues.length, timings: { ...times, sortMs, treeMs, writeMs } };
}
