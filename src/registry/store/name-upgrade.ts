/**
 * The upgrade of a name-keyed registry of format 2 or 3 to format 4 in place (`registry
 * upgrade`, upgrade.ts): leaf rows given their creating batch, format 3's kept versions packed
 * into `kept` chunks, the change log moved into its table, and the history rows rewritten in
 * binary.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "lmdb" with { "resolution-mode": "require" };
import { RegistryError } from "../errors.js";
import { parseMetadataJson } from "./metadata-json.js";
import { NAME_MAPPING_ID } from "../name-key.js";
import { readSlotKey } from "./record-codec.js";
import { seal, unseal } from "./row-seal.js";
import { RegistryEnvironment } from "./environment.js";
import {
  T_PRUNING,
  T_VERSION,
  checkRetention,
  encodeRetention,
  encodeWindow,
  pruningBatch,
  rowKeyLength,
  versionKey,
  type Retention,
} from "./name-versions.js";
import { leafDelta } from "./leaf-delta.js";
import { decodeHistoryJson, encodeHistoryRow } from "./name-history.js";
import { KeptChunkBuilder, T_KEPT, keptIndexKey, keptKey } from "./kept-chunks.js";
import { CHANGES_PREFIX, changeKeyOfMetaKey } from "./change-log.js";
import {
  CREATED_BYTES,
  FORMAT,
  FORMAT_VERSION,
  KEY_CONFIG,
  KEY_HEAD,
  KEY_RETENTION,
  KEY_WINDOW,
  NAME_SEALING,
  T_BRANCH,
  T_CHANGES,
  T_HISTORY,
  T_LEAF,
  T_META,
  decodeHead,
} from "./name-rows.js";
import { NameStore, checkNameConfig } from "./name-store.js";

function isDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Converts a name-keyed registry of format 2 or 3 to format 4 in place, in one write
 * transaction. Format 2 (tree rows of the head only): every leaf row gets its creating batch
 * (the head batch, so roots before the upgrade are not provable), and the retention and window
 * rows are written. Format 3 (one `versions` row per kept value, per-batch `pruning` lists): the
 * kept values are packed per batch into `kept` with their `kept-index` entries (kept-chunks.ts)
 * and the two old tables are dropped, so every root of the window stays provable. Root, records
 * and history are unchanged. A registry already at format 4 is left as it is. The result is then
 * opened, which checks the head root.
 * @throws RegistryError `DB_MISSING`, `DB_CORRUPT` (not a format-2, 3 or 4 name-keyed registry, or a damaged kept row).
 */
export function upgradeNameRegistry(
  dir: string,
  retention: Partial<Retention> = {},
): { fromVersion: number; toVersion: number; rows: number } {
  if (!isDir(dir) || !existsSync(join(dir, "data.mdb"))) NameStore.open(dir).closeSync(); // DB_MISSING
  const r = checkRetention(retention);
  const env = RegistryEnvironment.open(dir, false, NAME_SEALING);
  let rows = 0;
  let fromVersion = FORMAT_VERSION;
  try {
    const meta = env.table("meta");
    const raw = meta?.get(KEY_CONFIG);
    if (meta === undefined || raw === undefined)
      throw new RegistryError("DB_CORRUPT", `${dir} is an LMDB environment without a registry configuration`, { dir });
    const configValue = unseal(T_META, KEY_CONFIG, raw, "meta row config");
    const c = parseMetadataJson(configValue, "configuration", dir);
    if (c["format"] === FORMAT && c["version"] === 2 && c["mapping"] === NAME_MAPPING_ID) {
      fromVersion = 2;
      const config = checkNameConfig({ depth: c["depth"] as number, leafMaxFields: c["leafMaxFields"] as number });
      const leaves = env.table("leaves")!;
      env.table("kept");
      env.table("kept-index", true);
      const changes = env.table("changes")!;
      const history = env.table("history")!;
      env.write(() => {
        rows += moveChangeLog(meta, changes) + rewriteHistoryRows(history, dir);
        const rawHead = meta.get(KEY_HEAD);
        if (rawHead === undefined)
          throw new RegistryError("DB_CORRUPT", `registry at ${dir} has no head`, { row: "meta row head" });
        const head = decodeHead(unseal(T_META, KEY_HEAD, rawHead, "meta row head"), dir);
        let start: Buffer | undefined;
        for (;;) {
          const chunk: { key: Buffer; value: Buffer }[] = [];
          for (const { key, value } of leaves.getRange({ ...(start ? { start } : {}), limit: 10_000 }))
            chunk.push({ key: Buffer.from(key as Buffer), value: Buffer.from(value as Buffer) });
          if (chunk.length === 0) break;
          for (const { key, value } of chunk) {
            const v = unseal(T_LEAF, key, value, `leaf row of key ${readSlotKey(key)}`);
            const created = Buffer.alloc(CREATED_BYTES);
            created.writeUInt32LE(head.batch);
            leaves.putSync(key, seal(T_LEAF, key, Buffer.concat([v, created])));
            rows++;
          }
          start = Buffer.concat([chunk[chunk.length - 1]!.key, Buffer.of(0)]);
        }
        const configJson = Buffer.from(
          JSON.stringify({
            format: FORMAT,
            version: FORMAT_VERSION,
            mapping: NAME_MAPPING_ID,
            depth: config.depth,
            leafMaxFields: config.leafMaxFields,
          }),
        );
        meta.putSync(KEY_CONFIG, seal(T_META, KEY_CONFIG, configJson));
        meta.putSync(KEY_RETENTION, seal(T_META, KEY_RETENTION, encodeRetention(r)));
        meta.putSync(KEY_WINDOW, seal(T_META, KEY_WINDOW, encodeWindow(head.batch)));
        rows += 3;
      });
    } else if (c["format"] === FORMAT && c["version"] === 3 && c["mapping"] === NAME_MAPPING_ID) {
      fromVersion = 3;
      const versions = env.table("versions")!;
      const pruning = env.table("pruning")!;
      const kept = env.table("kept")!;
      const keptIndex = env.table("kept-index", true)!;
      const changes = env.table("changes")!;
      env.write(() => {
        rows =
          packFormat3Versions(versions, pruning, kept, keptIndex) +
          moveChangeLog(meta, changes) +
          rewriteHistoryRows(env.table("history")!, dir);
        versions.dropSync();
        pruning.dropSync();
        const config = { ...c, version: FORMAT_VERSION };
        meta.putSync(KEY_CONFIG, seal(T_META, KEY_CONFIG, Buffer.from(JSON.stringify(config))));
        rows++;
      });
    } else if (!(c["format"] === FORMAT && c["version"] === FORMAT_VERSION && c["mapping"] === NAME_MAPPING_ID)) {
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${dir}: configuration is not a name-keyed format 2, 3 or ${FORMAT_VERSION} row`,
        { dir },
      );
    }
  } finally {
    env.closeSync();
  }
  NameStore.open(dir).closeSync();
  return { fromVersion, toVersion: FORMAT_VERSION, rows };
}

/**
 * Packs a format-3 registry's kept versions (one `versions` row per value, listed per batch in
 * `pruning` chunks) into format 4's `kept` chunks and `kept-index` entries (inside the upgrade's
 * write transaction); each pruning chunk becomes the kept chunk of the same batch and number.
 * @returns the kept rows written.
 * @throws RegistryError `DB_CORRUPT` (a damaged pruning list or version row, or a listed version that is missing).
 */
function packFormat3Versions(
  versions: Database<Buffer, Buffer>,
  pruning: Database<Buffer, Buffer>,
  kept: Database<Buffer, Buffer>,
  keptIndex: Database<Buffer, Buffer>,
): number {
  let rows = 0;
  const lists: Buffer[] = [...pruning.getKeys({})].map((k) => Buffer.from(k as Buffer));
  for (const pk of lists) {
    const c = pruningBatch(pk);
    const what = `pruning row of batch ${c}`;
    const list = unseal(T_PRUNING, pk, pruning.get(pk)!, what);
    const chunk = new KeptChunkBuilder();
    const key = keptKey(c, pk.readUInt16BE(4));
    for (let at = 0; at < list.length; ) {
      const tag = list[at]!;
      const n = rowKeyLength(tag, T_LEAF, T_BRANCH, what);
      if (at + 1 + n > list.length) throw new RegistryError("DB_CORRUPT", `${what} is truncated`, { row: what });
      const rowKey = Buffer.from(list.subarray(at + 1, at + 1 + n));
      const vk = versionKey(tag, rowKey, c);
      const raw = versions.get(vk);
      if (raw === undefined)
        throw new RegistryError("DB_CORRUPT", `${what} names a kept row that is missing`, { row: what });
      const stored = unseal(T_VERSION, vk, raw, `version row of ${what}`);
      const value = tag === T_LEAF ? leafDelta(stored, `version row of ${what}`) : stored;
      const height = tag === T_LEAF ? 0 : rowKey[0]!;
      const prefix = readSlotKey(tag === T_LEAF ? rowKey : rowKey.subarray(1));
      if (tag === T_BRANCH && value.length !== 32)
        throw new RegistryError("DB_CORRUPT", `version row of ${what} has ${value.length} bytes, expected 32`, {
          row: what,
        });
      chunk.add(height, prefix, value);
      keptIndex.putSync(keptIndexKey(height, prefix), key);
      rows++;
      at += 1 + n;
    }
    if (chunk.rows > 0) kept.putSync(key, seal(T_KEPT, key, chunk.bytes()));
  }
  return rows;
}

/**
 * Moves the change-log rows of a format-2 or 3 registry from `meta` (`changes:…` keys) into the
 * `changes` table (inside the upgrade's write transaction).
 * @returns the rows moved.
 * @throws RegistryError `DB_CORRUPT` (a damaged row, or a `changes:` key of no change-log row).
 */
function moveChangeLog(meta: Database<Buffer, Buffer>, changes: Database<Buffer, Buffer>): number {
  const keys = [
    ...meta.getKeys({ start: Buffer.from(CHANGES_PREFIX, "latin1"), end: Buffer.from("changes;", "latin1") }),
  ].map((k) => Buffer.from(k as Buffer));
  for (const mk of keys) {
    const what = `meta row ${mk.toString("latin1")}`;
    const key = changeKeyOfMetaKey(mk);
    if (key === undefined) throw new RegistryError("DB_CORRUPT", `${what} is not a change-log row`, { row: what });
    changes.putSync(key, seal(T_CHANGES, key, unseal(T_META, mk, meta.get(mk)!, what)));
    meta.removeSync(mk);
  }
  return keys.length;
}

/**
 * Rewrites the JSON history rows of a format-2 or 3 registry in binary (name-history.ts), inside
 * the upgrade's write transaction, 10,000 rows at a time.
 * @returns the rows rewritten.
 * @throws RegistryError `DB_CORRUPT` (a damaged or malformed row).
 */
function rewriteHistoryRows(history: Database<Buffer, Buffer>, dir: string): number {
  let rows = 0;
  let start: Buffer | undefined;
  for (;;) {
    const chunk: { key: Buffer; value: Buffer }[] = [];
    for (const { key, value } of history.getRange({ ...(start ? { start } : {}), limit: 10_000 }))
      chunk.push({ key: Buffer.from(key as Buffer), value: Buffer.from(value as Buffer) });
    if (chunk.length === 0) return rows;
    for (const { key, value } of chunk) {
      const entry = decodeHistoryJson(unseal(T_HISTORY, key, value, NAME_SEALING.historyRowName(key)), dir);
      history.putSync(key, seal(T_HISTORY, key, encodeHistoryRow(entry)));
      rows++;
    }
    start = Buffer.concat([chunk[chunk.length - 1]!.key, Buffer.of(0)]);
  }
}
