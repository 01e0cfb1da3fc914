/**
 * The import pipeline both mappings share (import.ts for slot-v1, name-import.ts and
 * name-bulk.ts for record-leaf-v2): options and their checks, the validation of one entry, and
 * the read → hash loop in which the calling thread parses and validates batch k + 1 … while the
 * hash workers compute the leaf digests of batch k; batches come back in input order; and the
 * commit loop around it, with its accounting (batches, records, times, progress, the head it
 * ends at).
 */
import { availableParallelism } from "node:os";
import type { Digest } from "../../hash/digest.js";
import { RegistryError } from "../errors.js";
import type { HashPool, HashResult } from "../hashing/hash-pool.js";
import { ValueForm, checkFields, checkNameBytes, checkTextBytes } from "../mapping.js";
import { requireNfcName } from "../name-form.js";
import type { PackedBuilder } from "../hashing/packed.js";
import type { RecordSink, RecordSource } from "./sources/source.js";
import type { RegistryErrorCode } from "../errors.js";

/** One malformed or refused record of an import: its 1-based line, code and message. */
export interface ImportIssue {
  /** 1-based line of the record in its source. */
  readonly line: number;
  /** BAD_RECORD (syntax), BAD_NAME, BAD_VALUE, VALUE_TOO_LARGE, NAME_EXISTS or KEY_COLLISION. */
  readonly code: RegistryErrorCode;
  readonly message: string;
}

/** Progress of an import: source entries read and records committed. */
export interface ImportProgress {
  /** Source entries read (records and malformed ones). */
  readonly entries: number;
  /** Records committed. */
  readonly imported: number;
  /** Malformed records so far. */
  readonly malformed: number;
  readonly bytesRead: number;
  readonly totalBytes: number;
  /** Batches committed by this import. */
  readonly batches: number;
}

/** Where the time went (ms). parse/tree/write are on the calling thread; hash is summed over workers. */
export interface ImportTimings {
  readonly wallMs: number;
  /** Parsing and validation (calling thread). */
  readonly parseMs: number;
  /** Hashing on the workers: leaves (Keccak identities and value digests, Poseidon2 leaf sponges) and, in a name-keyed bulk import, the partitions' trees (summed over workers). */
  readonly hashMs: number;
  /** Waiting for workers (calling thread idle). */
  readonly waitMs: number;
  /** Inner-node recomputation (calling thread; a name-keyed bulk import: the tree phase's wall time less the row writes made in it). */
  readonly treeMs: number;
  /** Database writes and commits (calling thread). */
  readonly writeMs: number;
  /** Pre-check pass of `onError: "fail"`. */
  readonly checkMs: number;
  /** Sorting by key and finding duplicates (name-keyed bulk import). */
  readonly sortMs?: number;
}

/** Options both importers take. */
export interface ImportCommonOptions {
  /** "fail" (default): any malformed record rejects the import; "skip": leave them out. */
  readonly onError?: "skip" | "fail";
  /** Records per batch (one transaction, except in a name-keyed bulk import: one hash job). */
  readonly batchSize?: number;
  /** Hash worker threads (default: min(2, available cores); 0 hashes on the calling thread). */
  readonly threads?: number;
  readonly onProgress?: (p: ImportProgress) => void;
  readonly onMalformed?: (issue: ImportIssue) => void;
}

/**
 * Checked options with their defaults.
 * @throws RegistryError `BAD_CONFIG`.
 */
export function importSettings(
  options: ImportCommonOptions,
  defaultBatch: number,
): { onError: "skip" | "fail"; batchSize: number; threads: number; report: (issue: ImportIssue) => void } {
  const onError = options.onError ?? "fail";
  const batchSize = options.batchSize ?? defaultBatch;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new RegistryError("BAD_CONFIG", `batch size must be a positive integer, got ${batchSize}`);
  const threads = options.threads ?? Math.min(2, availableParallelism());
  if (!Number.isInteger(threads) || threads < 0 || threads > 64)
    throw new RegistryError("BAD_CONFIG", `threads must be an integer in [0, 64], got ${threads}`);
  return { onError, batchSize, threads, report: options.onMalformed ?? (() => {}) };
}

/**
 * Checks one parsed entry's name and value (names 1..1,024 UTF-8 bytes in Unicode NFC, texts ≤
 * 65,535, field lists within the leaf bound).
 * @throws RegistryError `BAD_NAME`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function checkEntry(
  name: Uint8Array,
  ns: number,
  ne: number,
  form: ValueForm,
  value: Uint8Array,
  vs: number,
  ve: number,
  leafMaxFields: number,
): void {
  checkNameBytes(name, ns, ne);
  if (!isAscii(name, ns, ne)) requireNfcName(utf8.decode(name.subarray(ns, ne)));
  if (form === ValueForm.Text) checkTextBytes(value, vs, ve);
  else if (form === ValueForm.Fields) {
    const view = new DataView(value.buffer, value.byteOffset + vs, ve - vs);
    const fields: number[] = [];
    for (let o = 0; o < ve - vs; o += 4) fields.push(view.getUint32(o, true));
    checkFields(fields, leafMaxFields);
  }
}

const utf8 = new TextDecoder();

/** True if bytes[start…end) are ASCII (every ASCII name is in NFC). */
function isAscii(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/** Calling-thread time of the read → hash loop (ms). */
export interface LoopTimes {
  parseMs: number;
  hashMs: number;
  waitMs: number;
}

/**
 * The read → hash loop: fills batches of `batchSize` accepted records from the source (every
 * batch but the last is full), keeps up to threads + 1 of them at the workers, and yields their
 * hash results in input order.
 */
export async function* hashedBatches(
  source: RecordSource,
  sink: RecordSink & { readonly builder: PackedBuilder },
  pool: HashPool,
  batchSize: number,
  threads: number,
  times: LoopTimes,
): AsyncGenerator<HashResult> {
  const queue: Promise<HashResult>[] = [];
  let exhausted = false;
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
        times.parseMs += performance.now() - t0;
        if (packed.count === 0) continue;
        queue.push(pool.hash(packed));
      }
      const job = queue.shift();
      if (job === undefined) return;
      const w0 = performance.now();
      const result = await job;
      times.waitMs += performance.now() - w0;
      times.hashMs += result.ms;
      yield result;
    }
  } finally {
    // a batch still at the workers when the consumer stops: its failure is not reported twice
    for (const q of queue) q.catch(() => {});
  }
}

/** One batch an importer committed: its history entry's batch and root, and what it took. */
export interface CommittedBatch {
  readonly batch: number;
  readonly root: Digest;
  /** Records the batch wrote. */
  readonly records: number;
  /** The part of the commit spent recomputing the tree (ms; the rest counts as writes). */
  readonly treeMs: number;
}

/** What an import reports (both mappings): the source, entries read, records imported, the issues met, the root after the import and timings in ms. */
export interface BatchImportReport {
  readonly source: string;
  readonly entries: number;
  readonly imported: number;
  /** Records left out (malformed and refused). */
  readonly malformed: number;
  /** Records already in the registry with the same name and live value (left as they are). */
  readonly present: number;
  /** Batches committed and the history numbers of the first and last (0 when none). */
  readonly batches: number;
  readonly firstBatch: number;
  readonly lastBatch: number;
  /** The root after the last batch (the starting root when none). */
  readonly root: Digest;
  readonly threads: number;
  readonly timings: ImportTimings;
}

/** What the commit loop runs on. */
export interface CommitLoop {
  readonly source: RecordSource;
  readonly sink: RecordSink & { readonly builder: PackedBuilder };
  /** The hash workers; closed when the loop ends, however it ends. */
  readonly pool: HashPool;
  readonly batchSize: number;
  readonly threads: number;
  /** The head the import starts from. */
  readonly start: { readonly batch: number; readonly root: Digest };
  /** `performance.now()` when the import started (wall time). */
  readonly started: number;
  /** Time of the check pass (ms, 0 without one). */
  readonly checkMs: number;
  /** Records left out so far (malformed and refused) and records found present. */
  readonly counts: () => { readonly malformed: number; readonly present: number };
  /** The first slot the import assigns (slot-v1), reported as `firstSlot`. */
  readonly firstSlot?: number;
  readonly onProgress?: ((p: ImportProgress) => void) | undefined;
}

/**
 * The commit loop both batch importers share: each hashed batch is committed by `commit` (given
 * the batch number the head must be at), whose time counts as writes but for the tree part it
 * returns; progress after each batch and at the end.
 * @throws whatever `commit` or the source throws; batches committed before stay committed.
 */
export async function commitHashedBatches(
  loop: CommitLoop,
  commit: (hashed: HashResult, expectBatch: number) => CommittedBatch,
): Promise<BatchImportReport & { readonly firstSlot?: number }> {
  const { source, pool, threads } = loop;
  const times: LoopTimes = { parseMs: 0, hashMs: 0, waitMs: 0 };
  let treeMs = 0,
    writeMs = 0;
  let expectBatch = loop.start.batch;
  let imported = 0;
  let batches = 0;
  let firstBatch = 0;
  let root = loop.start.root;
  const progress = () =>
    loop.onProgress?.({
      entries: source.entries,
      imported,
      malformed: loop.counts().malformed,
      bytesRead: source.bytesRead,
      totalBytes: source.totalBytes,
      batches,
    });
  try {
    for await (const hashed of hashedBatches(source, loop.sink, pool, loop.batchSize, threads, times)) {
      const c0 = performance.now();
      const done = commit(hashed, expectBatch);
      const dt = performance.now() - c0;
      imported += done.records;
      treeMs += done.treeMs;
      writeMs += dt - done.treeMs;
      expectBatch = done.batch;
      if (batches === 0) firstBatch = done.batch;
      batches++;
      root = done.root;
      progress();
    }
  } finally {
    await pool.close();
  }
  progress();
  const { malformed, present } = loop.counts();
  return {
    source: source.description,
    entries: source.entries,
    imported,
    malformed,
    present,
    batches,
    firstBatch,
    lastBatch: batches === 0 ? 0 : expectBatch,
    ...(loop.firstSlot !== undefined ? { firstSlot: loop.firstSlot } : {}),
    root,
    threads,
    timings: { wallMs: performance.now() - loop.started, ...times, treeMs, writeMs, checkMs: loop.checkMs },
  };
}
