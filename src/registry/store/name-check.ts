/**
 * The full check of a name-keyed store (name-store.ts), in one read snapshot: every row's
 * checksum, every record's key and leaf digest, the head's counts, the tree recomputed from the
 * records (root and every branch row), and the rows of earlier roots (kept chunks, their
 * `kept-index` entries, the root of each provable batch recomputed).
 */
import type { Transaction } from "lmdb" with { "resolution-mode": "require" };
import { compress, digestEquals, type Digest } from "../../hash/digest.js";
import { hashLeaf } from "../../smt/leaf.js";
import { RegistryError } from "../errors.js";
import { nfcFormOf } from "../name-form.js";
import type { NonNfcRecord } from "./check.js";
import { RecordState } from "./record-codec.js";
import { unseal } from "./row-seal.js";
import { NO_STORED_ROWS, nodeDigest, updateCompact } from "../hashing/name-tree.js";
import { T_KEPT, keptIndexKey, keptKeyParts, keptRows } from "./kept-chunks.js";
import { keptRowName } from "./name-rows.js";
import type { NameReads } from "./name-reads.js";
import type { NameHead, NameTables } from "./name-types.js";

/**
 * Scans the whole store: every row's checksum, every record's key and leaf digest against its
 * name and value, the counts of the head, and the tree recomputed from the records (root and
 * every branch row). Records under names that are not in Unicode NFC are listed (`nonNfc`, by
 * key), not damage.
 * @throws RegistryError `DB_CORRUPT` naming the first damaged or inconsistent row.
 */
export function checkNameStore(
  t: NameTables,
  r: NameReads,
  onProgress?: (rows: number) => void,
): {
  records: number;
  branches: number;
  root: Digest;
  nonNfc: NonNfcRecord[];
} {
  return t.env.read((txn) => {
    const head = r.head(txn);
    r.history();
    const { depth, leafMaxFields: B } = t.config;
    const keys = new Float64Array(head.records);
    const digests = new Uint32Array(8 * head.records);
    let n = 0,
      live = 0,
      deleted = 0;
    const nonNfc: NonNfcRecord[] = [];
    for (const row of r.leafRows(txn)) {
      const what = `leaf row of key ${row.key}`;
      if (n >= head.records)
        throw new RegistryError("DB_CORRUPT", `${what}: more leaf rows than the head's ${head.records} records`, {
          row: what,
        });
      if (r.keyOf(row.record.name) !== row.key)
        throw new RegistryError(
          "DB_CORRUPT",
          `${what} holds ${JSON.stringify(row.record.name)}, whose key is ${r.keyOf(row.record.name)}`,
          { row: what },
        );
      const expect = row.record.state === RecordState.Deleted ? t.tombstoneDigest : hashLeaf(r.leafOf(row.record), B);
      if (!digestEquals(expect, row.digest))
        throw new RegistryError("DB_CORRUPT", `${what}: its stored leaf digest is not the digest of its record`, {
          row: what,
        });
      if (row.record.state === RecordState.Deleted) deleted++;
      else live++;
      const nfc = nfcFormOf(row.record.name);
      if (nfc !== undefined)
        nonNfc.push({
          name: row.record.name,
          nfc,
          key: row.key,
          state: row.record.state === RecordState.Deleted ? "deleted" : "live",
        });
      keys[n] = row.key;
      digests.set(row.digest, 8 * n);
      n++;
      if (onProgress && n % 100_000 === 0) onProgress(n);
    }
    if (n !== head.records || live !== head.live || deleted !== head.deleted) {
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${t.dir}: ${n} leaf rows (${live} live, ${deleted} deleted); the head says ${head.records} (${head.live} live, ${head.deleted} deleted)`,
        { row: "meta row head" },
      );
    }
    const u =
      n === 0
        ? {
            root: t.defaults[depth]!,
            branches: {
              count: 0,
              heights: new Uint8Array(0),
              prefixes: new Float64Array(0),
              digests: new Uint32Array(0),
            },
          }
        : updateCompact(depth, t.defaults, t.compressor(), new Float64Array(0), 0, keys, digests, NO_STORED_ROWS);
    let i = 0;
    for (const b of r.branchRows(txn)) {
      const what = `branch row (height ${b.h}, prefix ${b.p})`;
      if (i >= u.branches.count || u.branches.heights[i] !== b.h || u.branches.prefixes[i] !== b.p)
        throw new RegistryError("DB_CORRUPT", `${what} is not a branch of the records' tree`, { row: what });
      if (!digestEquals(b.digest, u.branches.digests.subarray(8 * i, 8 * i + 8)))
        throw new RegistryError("DB_CORRUPT", `${what} does not match the digest recomputed from the records`, {
          row: what,
        });
      i++;
    }
    if (i !== u.branches.count)
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${t.dir}: ${u.branches.count - i} branch rows are missing (first: height ${u.branches.heights[i]}, prefix ${u.branches.prefixes[i]})`,
        { row: `branch row (height ${u.branches.heights[i]}, prefix ${u.branches.prefixes[i]})` },
      );
    if (!digestEquals(u.root, head.root))
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${t.dir}: the root recomputed from the records differs from the head root of batch ${head.batch}`,
        { row: "meta row head" },
      );
    checkVersions(t, r, txn, head);
    return { records: n, branches: i, root: u.root, nonNfc };
  });
}

/**
 * The earlier-root rows (in the check's snapshot): every leaf row's creating batch is at most
 * the head's, every kept chunk is of a batch up to the head's and decodes (its leaf rows too),
 * every row it keeps is named by its `kept-index` entry and the index names nothing else, and
 * the top of the tree at each provable batch recomputes that batch's root.
 * @throws RegistryError `DB_CORRUPT`.
 */
function checkVersions(t: NameTables, r: NameReads, txn: Transaction, head: NameHead): void {
  for (const row of r.leafRows(txn))
    if (row.created > head.batch)
      throw new RegistryError(
        "DB_CORRUPT",
        `leaf row of key ${row.key} was created by batch ${row.created}, after the head's batch ${head.batch}`,
        { row: `leaf row of key ${row.key}` },
      );
  const oldest = r.oldestBatch(txn);
  if (oldest > head.batch)
    throw new RegistryError(
      "DB_CORRUPT",
      `registry at ${t.dir}: the oldest provable batch ${oldest} is after the head's batch ${head.batch}`,
      { row: "meta row window" },
    );
  let listed = 0;
  for (const { key, value } of t.kept.getRange({ transaction: txn })) {
    const k = key as Buffer;
    const what = keptRowName(k);
    if (k.length !== 6 || keptKeyParts(k).batch > head.batch || keptKeyParts(k).batch === 0)
      throw new RegistryError("DB_CORRUPT", `${what} is not of a batch up to the head's ${head.batch}`, {
        row: what,
      });
    for (const row of keptRows(unseal(T_KEPT, k, value, what), what)) {
      if (row.height === 0) {
        const headRow = r.leafRow(row.prefix, txn);
        if (headRow === undefined)
          throw new RegistryError("DB_CORRUPT", `${what} keeps leaf key ${row.prefix}, which holds no record`, {
            row: what,
          });
        r.keptLeaf(row.value, headRow, `leaf key ${row.prefix} in ${what}`);
      }
      const named = t.keptIndex.getValues(keptIndexKey(row.height, row.prefix), {
        start: k,
        limit: 1,
        transaction: txn,
      } as never);
      let found = false;
      for (const v of named) found = Buffer.compare(v as Buffer, k) === 0;
      if (!found)
        throw new RegistryError(
          "DB_CORRUPT",
          `${what} keeps ${row.height === 0 ? `leaf key ${row.prefix}` : `branch (height ${row.height}, prefix ${row.prefix})`}, which its index entries do not name`,
          { row: what },
        );
      listed++;
    }
  }
  let stored = 0;
  for (const _ of t.keptIndex.getRange({ transaction: txn })) stored++;
  if (stored !== listed)
    throw new RegistryError(
      "DB_CORRUPT",
      `registry at ${t.dir}: ${stored} kept-index entries, the kept chunks hold ${listed} rows`,
      { row: "kept-index" },
    );
  const d = t.config.depth;
  const c = t.compressor();
  for (let b = oldest; b < head.batch; b++) {
    const src = r.sourceAt(txn, b);
    const top = compress(nodeDigest(src, c, t.defaults, d - 1, 0), nodeDigest(src, c, t.defaults, d - 1, 1));
    if (!digestEquals(top, r.historyEntry(b, txn).root))
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${t.dir}: the stored rows at batch ${b} do not recompute its root`,
        { batch: b },
      );
  }
}
