/**
 * Versions of the name-keyed store's tree rows (docs/registry.md §"Proofs at earlier roots"):
 * copy-on-write of superseded rows, so every root of a retention window stays provable, and the
 * retention that bounds them.
 *
 * The `leaves` and `branches` tables always hold the head's rows. When a batch `c` overwrites a
 * row, the value it replaces (the row as it was at batch c − 1) is kept in batch c's chunks in
 * `kept`, named by the row's `kept-index` entry (format 4, kept-chunks.ts). A row that a batch
 * creates has no earlier value: a leaf row carries the batch that created it, so a reader at
 * batch b skips leaves created after b, and a branch row is only read where two records existed
 * at b, that is where it existed. The value of a row at batch b < head is the value kept in the
 * first chunk after b that names it, or the head's row when no batch after b overwrote it.
 *
 * Format 3 kept each value in `versions` under table tag ‖ row key ‖ c (4-byte BE) and listed
 * each batch's superseded rows in `pruning` (key: c ‖ chunk number, 4 + 2 bytes BE; at most
 * `PRUNE_CHUNK_ROWS` rows per chunk); the helpers of those keys remain for `registry upgrade`.
 *
 * Retention: a root stays provable while it is at most `commits` batches behind the head and
 * less than `days` days have passed since the batch that replaced it (the head is always
 * provable). Each commit moves the oldest
 * provable batch forward (at most `MAX_ADVANCE` batches) and then deletes up to
 * `PRUNE_BUDGET_ROWS` kept versions that no provable root reads, so a commit's pruning work is
 * bounded; what is left is deleted by the next commits.
 */
import { RegistryError } from "../errors.js";
import { isCount, parseMetadataJson } from "./metadata-json.js";

/** Row-seal tag of a format-3 kept version. */
export const T_VERSION = 5;
/** Row-seal tag of a format-3 pruning-list chunk. */
export const T_PRUNING = 6;
/** Superseded rows per format-3 pruning-list chunk. */
export const PRUNE_CHUNK_ROWS = 512;
/** Kept versions a commit deletes at most. */
export const PRUNE_BUDGET_ROWS = 4096;
/** Batches the oldest provable batch moves forward per commit at most. */
export const MAX_ADVANCE = 64;

/** How long earlier roots stay provable. */
export interface Retention {
  /** Batches behind the head whose roots stay provable (0 = the head only). */
  readonly commits: number;
  /** Days a root stays provable after its batch committed. */
  readonly days: number;
}

/** Default retention: 1,000 batches and 30 days. */
export const DEFAULT_RETENTION: Retention = { commits: 1000, days: 30 };

/** Upper bounds of the retention options. */
const MAX_RETENTION_COMMITS = 100_000_000;
const MAX_RETENTION_DAYS = 36_500;

/**
 * Validates a retention, filling defaults.
 * @throws RegistryError `BAD_CONFIG`.
 */
export function checkRetention(r: Partial<Retention> = {}): Retention {
  const commits = r.commits ?? DEFAULT_RETENTION.commits;
  const days = r.days ?? DEFAULT_RETENTION.days;
  if (!Number.isInteger(commits) || commits < 0 || commits > MAX_RETENTION_COMMITS)
    throw new RegistryError(
      "BAD_CONFIG",
      `retention in commits must be an integer in [0, ${MAX_RETENTION_COMMITS}], got ${commits}`,
      { commits },
    );
  if (typeof days !== "number" || !Number.isFinite(days) || days < 0 || days > MAX_RETENTION_DAYS)
    throw new RegistryError(
      "BAD_CONFIG",
      `retention in days must be a number in [0, ${MAX_RETENTION_DAYS}], got ${days}`,
      { days },
    );
  return { commits, days };
}

/** The `retention` meta row's JSON. */
export function encodeRetention(r: Retention): Buffer {
  return Buffer.from(JSON.stringify({ commits: r.commits, days: r.days }));
}

/** Decodes the `retention` meta row. @throws RegistryError `DB_CORRUPT`. */
export function decodeRetention(raw: Uint8Array, dir: string): Retention {
  const j = parseMetadataJson(raw, "retention", dir);
  try {
    return checkRetention({ commits: j["commits"] as number, days: j["days"] as number });
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: retention row: ${(e as Error).message}`, {
      dir,
      row: "meta row retention",
    });
  }
}

/** The `window` meta row: the oldest provable batch. */
export function encodeWindow(oldest: number): Buffer {
  return Buffer.from(JSON.stringify({ oldest }));
}

/** Decodes the `window` meta row. @throws RegistryError `DB_CORRUPT`. */
export function decodeWindow(raw: Uint8Array, dir: string): number {
  const j = parseMetadataJson(raw, "window", dir);
  if (!isCount(j["oldest"]))
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: window row is malformed`, {
      dir,
      row: "meta row window",
    });
  return j["oldest"];
}

/** Key of the version of row `rowKey` (table tag `tag`) superseded by batch `batch`. */
export function versionKey(tag: number, rowKey: Uint8Array, batch: number): Buffer {
  const k = Buffer.allocUnsafe(1 + rowKey.length + 4);
  k[0] = tag;
  k.set(rowKey, 1);
  k.writeUInt32BE(batch, 1 + rowKey.length);
  return k;
}

/** Key of chunk `chunk` of batch `batch`'s pruning list. */
export function pruningKey(batch: number, chunk: number): Buffer {
  const k = Buffer.allocUnsafe(6);
  k.writeUInt32BE(batch, 0);
  k.writeUInt16BE(chunk, 4);
  return k;
}

/** Batch of a pruning-list key. */
export function pruningBatch(key: Uint8Array): number {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).readUInt32BE(0);
}

/** Length of a row key after its table tag (leaves: 8 bytes, branches: 9). */
export function rowKeyLength(tag: number, leafTag: number, branchTag: number, where: string): number {
  if (tag === leafTag) return 8;
  if (tag === branchTag) return 9;
  throw new RegistryError("DB_CORRUPT", `${where} names table tag ${tag}`, { row: where });
}

/**
 * Where earlier roots start: the oldest provable batch after a commit of `head` at `now` (ms),
 * moved forward from `oldest` by the retention, at most `MAX_ADVANCE` batches.
 * @param committedAt reads the commit time (ms) of a batch.
 */
export function advanceWindow(
  oldest: number,
  head: number,
  now: number,
  r: Retention,
  committedAt: (batch: number) => number,
): number {
  let o = oldest;
  const cutoff = now - r.days * 86_400_000;
  for (let step = 0; step < MAX_ADVANCE && o < head; step++) {
    if (head - o > r.commits) {
      o++;
      continue;
    }
    // the root of batch o was superseded at the commit of batch o + 1
    if (committedAt(o + 1) <= cutoff) {
      o++;
      continue;
    }
    break;
  }
  if (head - o > r.commits) o = head - r.commits;
  return o;
}
