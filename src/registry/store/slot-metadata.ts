/**
 * The JSON metadata rows of a slot registry (store.ts): the configuration row (format, version,
 * depth, leaf bound, tile height, mapping, row checksum), the head and the history entries.
 * Reading fails with `DB_CORRUPT` naming the registry directory (`DB_OUTDATED` for a format-1
 * configuration row).
 */
import { RegistryError } from "../errors.js";
import { MAPPING_ID } from "../mapping.js";
import { isCount, parseMetadataJson, rootFromJson } from "./metadata-json.js";
import { ROW_CHECKSUM_ID, sealRow, tryOpenRow } from "./row-checksum.js";
import { TILE_HEIGHT } from "./tiles.js";
import type { HistoryEntry, RegistryConfig, RegistryHead } from "./slot-types.js";

export const FORMAT = "ssgkr-registry";
/** Format version 2: every row carries a checksum (version 1 had none; `upgradeRegistry` converts). */
export const FORMAT_VERSION = 2;
/** Keys of the configuration and head rows in the `meta` table. */
export const KEY_CONFIG = Buffer.from("config");
export const KEY_HEAD = Buffer.from("head");

/** The sealed configuration row of `config`. */
export function configRow(config: RegistryConfig): Buffer {
  const json = {
    format: FORMAT,
    version: FORMAT_VERSION,
    depth: config.depth,
    leafMaxFields: config.leafMaxFields,
    tileHeight: TILE_HEIGHT,
    mapping: MAPPING_ID,
    rowChecksum: ROW_CHECKSUM_ID,
  };
  return sealRow(KEY_CONFIG, Buffer.from(JSON.stringify(json)));
}

/**
 * The fields of a slot registry's configuration row (not yet checked against the configuration
 * limits: `checkRegistryConfig` does that).
 * @throws RegistryError `DB_OUTDATED` for a format-1 row (no checksums), `DB_CORRUPT` otherwise.
 */
export function parseConfigRow(sealed: Uint8Array, dir: string): Pick<RegistryConfig, "depth" | "leafMaxFields"> {
  const raw = tryOpenRow(KEY_CONFIG, sealed);
  if (raw === undefined) {
    let legacy: unknown;
    try {
      legacy = JSON.parse(Buffer.from(sealed).toString("utf8"));
    } catch {
      legacy = undefined;
    }
    const l = legacy as Record<string, unknown> | undefined;
    if (l !== null && typeof l === "object" && l["format"] === FORMAT && l["version"] === 1) {
      throw new RegistryError(
        "DB_OUTDATED",
        `registry at ${dir} has format version 1 (rows without checksums); this version reads format ${FORMAT_VERSION}: run \`ssgkr registry upgrade --db ${dir}\` once (adds the checksums in place, keeps root and history)`,
        { dir, version: 1 },
      );
    }
    throw new RegistryError(
      "DB_CORRUPT",
      `registry at ${dir}: configuration row is damaged: its checksum does not match its content`,
      { dir, row: "configuration row" },
    );
  }
  const c = parseMetadataJson(raw, "configuration", dir);
  if (
    c["format"] !== FORMAT ||
    c["version"] !== FORMAT_VERSION ||
    c["mapping"] !== MAPPING_ID ||
    c["tileHeight"] !== TILE_HEIGHT ||
    c["rowChecksum"] !== ROW_CHECKSUM_ID
  ) {
    throw new RegistryError(
      "DB_CORRUPT",
      `registry at ${dir}: unsupported format ${JSON.stringify({ format: c["format"], version: c["version"], mapping: c["mapping"], tileHeight: c["tileHeight"], rowChecksum: c["rowChecksum"] })}`,
      { dir },
    );
  }
  return { depth: c["depth"] as number, leafMaxFields: c["leafMaxFields"] as number };
}

/** The payload of the head row. */
export function encodeHead(h: RegistryHead): Buffer {
  return Buffer.from(
    JSON.stringify({
      batch: h.batch,
      root: Array.from(h.root),
      nextSlot: h.nextSlot,
      live: h.live,
      deleted: h.deleted,
    }),
  );
}

/** Decodes the payload of the head row. @throws RegistryError `DB_CORRUPT`. */
export function decodeHead(raw: Uint8Array, dir: string): RegistryHead {
  const h = parseMetadataJson(raw, "head", dir);
  const root = rootFromJson(h["root"]);
  if (
    !isCount(h["batch"]) ||
    root === undefined ||
    !isCount(h["nextSlot"]) ||
    !isCount(h["live"]) ||
    !isCount(h["deleted"])
  ) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: head is malformed`, { dir });
  }
  return { batch: h["batch"], root, nextSlot: h["nextSlot"], live: h["live"], deleted: h["deleted"] };
}

/** The payload of a history row. */
export function encodeHistory(e: HistoryEntry): Buffer {
  return Buffer.from(JSON.stringify({ ...e, root: Array.from(e.root) }));
}

/** Decodes the payload of a history row. @throws RegistryError `DB_CORRUPT`. */
export function decodeHistory(raw: Uint8Array, dir: string): HistoryEntry {
  const h = parseMetadataJson(raw, "history entry", dir);
  const head = decodeHead(raw, dir);
  if (typeof h["kind"] !== "string" || !isCount(h["records"]) || typeof h["committedAt"] !== "string") {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: history entry of batch ${head.batch} is malformed`, {
      dir,
    });
  }
  return {
    ...head,
    kind: h["kind"],
    records: h["records"],
    committedAt: h["committedAt"],
    ...(isCount(h["slot"]) ? { slot: h["slot"] } : {}),
  };
}
