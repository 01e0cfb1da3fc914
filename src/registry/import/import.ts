/**
 * Bulk import: records from a source are validated, assigned the next free slots in input
 * order, hashed to leaves on worker threads, and committed in batches (one transaction and one
 * history entry per batch of `batchSize` records).
 *
 * Pipeline: the calling thread parses and validates batch k + 1 … while the workers hash batch
 * k; batches are committed in order (tree update and writes on the calling thread).
 *
 * A record whose name is already in the registry with the same live value is left as it is and
 * counted as `present` (not an error): rerunning an interrupted import finishes it, with the
 * same slots and root as an uninterrupted run.
 *
 * Malformed records (syntax, name, value, bound, duplicate name) are reported with their line
 * number through `onMalformed`. With `onError: "skip"` they are left out; with `"fail"` (the
 * default) the whole input is checked first and any malformed record rejects the import with
 * nothing written.
 */
import { RegistryError, type RegistryErrorCode } from "../errors.js";
import { HashPool, type PermutationChoice } from "../hashing/hash-pool.js";
import {
  checkEntry,
  commitHashedBatches,
  importSettings,
  type ImportCommonOptions,
  type BatchImportReport,
  type ImportIssue,
} from "./import-pipeline.js";
import type { ValueForm } from "../mapping.js";
import { PackedBuilder, type PackedRecords } from "../hashing/packed.js";
import { RecordState, readSlotKey, recordRowBytes, writeRecordRow, writeSlotKey } from "../store/record-codec.js";
import { ROW_CHECKSUM_BYTES, openRow, sealInPlace } from "../store/row-checksum.js";
import { nameEntry } from "../store/store.js";
import type { RecordSink, RecordSource } from "./sources/source.js";
import type { LeafChanges, RegistryHead, RegistryStore, WriteTables } from "../store/store.js";

export type { ImportIssue, ImportProgress, ImportTimings } from "./import-pipeline.js";

/** Options of `importRecords` (slot-v1): the shared import options and the hashers' permutation. */
export interface ImportOptions extends ImportCommonOptions {
  /** Permutation of the hashers (default "auto": the WASM kernel when built). */
  readonly permutation?: PermutationChoice;
}

/** The result of `importRecords`: the source, entries read, records imported, the issues met, the root after the import and timings in ms. */
export interface ImportReport extends BatchImportReport {
  /** Slots assigned: [firstSlot, firstSlot + imported). */
  readonly firstSlot: number;
}

const DEFAULT_BATCH = 100_000;

/**
 * Validates entries. The check pass (`dedup`) also finds duplicate names (in the input and
 * against the registry); the import pass packs the valid entries and leaves duplicates to the
 * name index (a name put that finds its key taken, see `writeRows`).
 */
class ImportSink implements RecordSink {
  builder = new PackedBuilder();
  malformedCount = 0;
  presentCount = 0;
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly store: RegistryStore,
    private readonly report: (issue: ImportIssue) => void,
    /** presentBelow: records registered at slots below it before the import are checked for `present` (0: none). */
    private readonly mode: { readonly dedup: boolean; readonly presentBelow: number; readonly pack: boolean },
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
      checkEntry(name, ns, ne, form, value, vs, ve, this.store.config.leafMaxFields);
    } catch (e) {
      if (!(e instanceof RegistryError)) throw e;
      this.malformed(line, e.message, e.code);
      return;
    }
    if (this.mode.dedup) {
      const key = Buffer.from(name.buffer, name.byteOffset + ns, ne - ns).toString("latin1");
      const first = this.seen.get(key);
      if (first !== undefined) {
        this.malformed(line, `duplicate name ${shown(name, ns, ne)} (first at line ${first})`, "NAME_EXISTS");
        return;
      }
    }
    if (this.mode.presentBelow > 0) {
      const stored = this.store.recordRowOfName(name.subarray(ns, ne));
      if (stored !== undefined && stored.slot < this.mode.presentBelow) {
        if (sameLiveRow(stored.row, name, ns, ne, form, value, vs, ve)) {
          this.presentCount++;
          if (this.mode.dedup)
            this.seen.set(Buffer.from(name.buffer, name.byteOffset + ns, ne - ns).toString("latin1"), line);
          return;
        }
        if (this.mode.dedup) {
          this.malformed(
            line,
            `name ${shown(name, ns, ne)} is already in the registry (slot ${stored.slot}) with another value or deleted`,
            "NAME_EXISTS",
          );
          return;
        }
        // import pass: writeRows reports it when the name put finds the key taken
      }
    }
    if (this.mode.dedup)
      this.seen.set(Buffer.from(name.buffer, name.byteOffset + ns, ne - ns).toString("latin1"), line);
    if (this.mode.pack) this.builder.add(line, name, ns, ne, form, value, vs, ve);
  }
}

/** Whether a stored record row is the live record (name, value) of an input entry. */
function sameLiveRow(
  row: Uint8Array,
  name: Uint8Array,
  ns: number,
  ne: number,
  form: ValueForm,
  value: Uint8Array,
  vs: number,
  ve: number,
): boolean {
  const want = new Uint8Array(recordRowBytes(ne - ns, form, ve - vs));
  writeRecordRow(want, 0, RecordState.Live, name, ns, ne, form, value, vs, ve);
  return Buffer.from(row.buffer, row.byteOffset, row.byteLength).equals(want);
}

function shown(bytes: Uint8Array, start: number, end: number): string {
  const s = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8");
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}

const APPEND = { append: true };
const NO_OVERWRITE = { noOverwrite: true };

/**
 * Writes the record rows and name-index entries of a hashed batch, assigning slots from the head
 * on, and returns the leaf changes. A name already in the index (earlier in the input or in the
 * registry) is reported and left out, or aborts the batch when `duplicates` is "fail".
 */
function writeRows(
  t: WriteTables,
  head: RegistryHead,
  depth: number,
  p: PackedRecords,
  digests: Uint32Array,
  duplicates: "skip" | "fail",
  report: (issue: ImportIssue) => void,
): LeafChanges & { duplicates: number } {
  let total = 0;
  for (let i = 0; i < p.count; i++) {
    total +=
      recordRowBytes(
        p.nameOffsets[i + 1]! - p.nameOffsets[i]!,
        p.forms[i] as ValueForm,
        p.valueOffsets[i + 1]! - p.valueOffsets[i]!,
      ) + ROW_CHECKSUM_BYTES;
  }
  // Plain Uint8Array views: lmdb takes them as keys and values, and they are cheaper than Buffers.
  const rows = new Uint8Array(total);
  const keys = new Uint8Array(8 * p.count);
  const slots = new Float64Array(p.count);
  const kept = new Uint32Array(8 * p.count);
  const capacity = 2 ** depth;
  let next = head.nextSlot;
  let n = 0;
  let dups = 0;
  let at = 0;
  for (let i = 0; i < p.count; i++) {
    const key = keys.subarray(8 * n, 8 * n + 8);
    writeSlotKey(keys, 8 * n, next);
    const name = p.names.subarray(p.nameOffsets[i]!, p.nameOffsets[i + 1]!);
    // putSync returns false when noOverwrite finds the key taken (lmdb README; its typings say void).
    if (!(t.names.putSync(name as Buffer, nameEntry(name, key), NO_OVERWRITE) as unknown as boolean)) {
      const nk = Buffer.from(name);
      const slot = readSlotKey(
        openRow(
          nk,
          t.names.get(nk)!,
          () => `name-index row of ${shown(p.names, p.nameOffsets[i]!, p.nameOffsets[i + 1]!)}`,
        ),
      );
      const shownName = shown(p.names, p.nameOffsets[i]!, p.nameOffsets[i + 1]!);
      if (duplicates === "fail")
        throw new RegistryError(
          "NAME_EXISTS",
          `line ${p.lines[i]}: name ${shownName} is already registered (slot ${slot}); nothing of this batch was written`,
          { line: p.lines[i], slot },
        );
      dups++;
      report({
        line: p.lines[i]!,
        code: "NAME_EXISTS",
        message: `name ${shownName} is already registered (slot ${slot})`,
      });
      continue;
    }
    if (next >= capacity) {
      throw new RegistryError(
        "REGISTRY_FULL",
        `all 2^${depth} slots are assigned; the batch from line ${p.lines[0]} on was not written`,
        { depth },
      );
    }
    const start = at;
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
    at = sealInPlace(rows, start, at, key);
    t.records.putSync(key as Buffer, rows.subarray(start, at) as Buffer, APPEND);
    slots[n] = next;
    kept.set(digests.subarray(8 * i, 8 * i + 8), 8 * n);
    n++;
    next++;
  }
  return {
    slots: slots.subarray(0, n),
    digests: kept.subarray(0, 8 * n),
    nextSlot: next,
    liveDelta: n,
    deletedDelta: 0,
    records: n,
    duplicates: dups,
  };
}

/**
 * Imports records from a source into the store.
 * @param makeSource creates the source (called twice with `onError: "fail"`: check pass, then import).
 * @throws RegistryError `IMPORT_REJECTED` (fail mode; nothing written), `REGISTRY_FULL`,
 * `BAD_SOURCE`, `HASH_FAILED`, `CONCURRENT_UPDATE`. Batches committed before a failure stay.
 */
export async function importRecords(
  store: RegistryStore,
  makeSource: () => RecordSource,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const started = performance.now();
  const { onError, batchSize, threads, report } = importSettings(options, DEFAULT_BATCH);
  const startHead = store.head();
  const capacity = 2 ** store.config.depth;

  let checkMs = 0;
  if (onError === "fail") {
    const t0 = performance.now();
    const issues: ImportIssue[] = [];
    const checker = new ImportSink(
      store,
      (i) => {
        if (issues.length < 100) issues.push(i);
        report(i);
      },
      { dedup: true, presentBelow: startHead.nextSlot, pack: false },
    );
    const source = makeSource();
    while (source.next(checker, batchSize));
    const accepted = source.entries - checker.malformedCount - checker.presentCount;
    if (checker.malformedCount > 0) {
      throw new RegistryError(
        "IMPORT_REJECTED",
        `${checker.malformedCount} malformed record${checker.malformedCount === 1 ? "" : "s"} in ${source.description} (first at line ${issues[0]!.line}: ${issues[0]!.message}); nothing was imported (use --on-error skip to leave them out)`,
        { errors: issues, count: checker.malformedCount },
      );
    }
    if (startHead.nextSlot + accepted > capacity) {
      throw new RegistryError(
        "REGISTRY_FULL",
        `${accepted} records do not fit: ${capacity - startHead.nextSlot} of the 2^${store.config.depth} slots are free; nothing was imported`,
        { depth: store.config.depth },
      );
    }
    checkMs = performance.now() - t0;
  }

  const source = makeSource();
  const sink = new ImportSink(store, report, { dedup: false, presentBelow: startHead.nextSlot, pack: true });
  const pool = new HashPool(threads, store.config.leafMaxFields, options.permutation ?? "auto");
  let duplicates = 0;
  const r = await commitHashedBatches(
    {
      source,
      sink,
      pool,
      batchSize,
      threads,
      start: startHead,
      started,
      checkMs,
      firstSlot: startHead.nextSlot,
      counts: () => ({ malformed: sink.malformedCount + duplicates, present: sink.presentCount }),
      onProgress: options.onProgress,
    },
    ({ digests, packed }, expectBatch) => {
      const timing = { treeMs: 0 };
      let dups = 0;
      const entry = store.commit(
        {
          kind: "import",
          expectBatch,
          write: (t, head) => {
            const changed = writeRows(t, head, store.config.depth, packed, digests, onError, report);
            dups = changed.duplicates;
            return changed;
          },
        },
        timing,
      );
      duplicates += dups;
      return { batch: entry.batch, root: entry.root, records: entry.records, treeMs: timing.treeMs };
    },
  );
  // firstSlot is passed to the loop too, so that it keeps its place among the report's fields
  return { ...r, firstSlot: startHead.nextSlot };
}
