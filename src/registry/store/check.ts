/**
 * Full check of a registry (`ssgkr registry check`), read from one snapshot:
 *
 * - every row of every table passes its checksum (row-checksum.ts) and decodes;
 * - the history runs 0..head batch and ends at the head root;
 * - slots 0..nextSlot − 1 each hold a record row and none lies beyond; the live and deleted
 *   counts match the head; every record's name maps back to its slot in the name index, and the
 *   index has exactly one row per used slot;
 * - the stored tree is the tree of the records: every leaf digest is h_leaf of its slot's
 *   record (Tombstone for a deleted one, Empty beyond the next slot), every stored node is
 *   h_node of its two children (stored or empty-subtree default), and h_node of the two top
 *   nodes is the head root. So every path of the tree recomputes the head root.
 *
 * Work: one pass over each table, leaf hashing of every live record (on worker threads) and
 * one h_node per stored node; memory is bounded by a chunk of slots plus one digest per
 * non-default node of tile level 4.
 */
import type { Transaction } from "lmdb" with { "resolution-mode": "require" };
import { availableParallelism } from "node:os";
import { digestEquals, type Digest } from "../../hash/digest.js";
import { RATE, WIDTH } from "../../hash/poseidon2.js";
import { TOMBSTONE, hashLeaf } from "../../smt/leaf.js";
import { RegistryError } from "../errors.js";
import { nfcFormOf } from "../name-form.js";
import { HashPool, type PermutationChoice } from "../hashing/hash-pool.js";
import { PackedBuilder } from "../hashing/packed.js";
import { compressPairs } from "../hashing/permutation.js";
import { RecordState, decodeRecord, readSlotKey, slotKey, valueParts } from "./record-codec.js";
import type { RegistryStore } from "./store.js";
import { decodeHistory } from "./slot-metadata.js";
import { TILE_HEIGHT, Tile, layerHeight, layerPositions, tileKey, tileLayers } from "./tiles.js";

/** Progress of `checkRegistry`: the phase and how much of it is done (entries of that phase). */
export interface CheckProgress {
  /** "history", "records" (records, leaves and tile layer 0), "tiles" (upper layers), "names". */
  readonly phase: "history" | "records" | "tiles" | "names";
  readonly done: number;
  readonly total: number;
}

/** Options of `checkRegistry`: leaf-hashing threads, chunk size, progress callback. */
export interface CheckOptions {
  /** Leaf-hashing worker threads (default min(2, available cores); 0 = the calling thread). */
  readonly threads?: number;
  /** Slots per chunk of the record pass (default 65,536). */
  readonly chunkSlots?: number;
  readonly permutation?: PermutationChoice;
  readonly onProgress?: (p: CheckProgress) => void;
}

/** What `checkRegistry` verified: the head's batch and root (8 elements), and the counts of records, leaves and tiles it recomputed. */
export interface CheckReport {
  readonly batch: number;
  readonly root: Digest;
  readonly records: number;
  readonly live: number;
  readonly deleted: number;
  readonly names: number;
  /** Stored tiles (non-default node groups). */
  readonly tiles: number;
  readonly historyEntries: number;
  /** Rows checked, all tables. */
  readonly rows: number;
  /** Records (live or deleted) whose name is not in Unicode NFC, by slot, with the NFC form: kept as they are, and listed (name-form.ts). */
  readonly nonNfc: readonly NonNfcRecord[];
  readonly ms: number;
}

/** A record under a name that is not in Unicode NFC (written before names were checked). */
export interface NonNfcRecord {
  readonly name: string;
  /** The name's NFC form. */
  readonly nfc: string;
  /** The record's slot (slot registries) or key (name-keyed registries). */
  readonly slot?: number;
  readonly key?: number;
  readonly state: "live" | "deleted";
}

function corrupt(message: string, row?: string): RegistryError {
  return new RegistryError("DB_CORRUPT", message, row === undefined ? {} : { row });
}

/** A growable sparse list of (index, digest), indices ascending. */
class Nodes {
  idx: number[] = [];
  vals = new Uint32Array(8 * 64);
  get count(): number {
    return this.idx.length;
  }
  push(index: number, from: Uint32Array, at: number): void {
    const n = this.idx.length;
    if (8 * (n + 1) > this.vals.length) {
      const grown = new Uint32Array(this.vals.length * 2);
      grown.set(this.vals);
      this.vals = grown;
    }
    this.vals.set(from.subarray(at, at + 8), 8 * n);
    this.idx.push(index);
  }
}

/**
 * Checks the whole registry.
 * @throws RegistryError `DB_CORRUPT` naming the first damaged row or inconsistency found.
 */
export async function checkRegistry(store: RegistryStore, options: CheckOptions = {}): Promise<CheckReport> {
  const started = performance.now();
  const { depth, leafMaxFields } = store.config;
  const defaults = store.defaults;
  const perm = store.nodePermutation();
  const threads = options.threads ?? Math.min(2, availableParallelism());
  const pool = new HashPool(threads, leafMaxFields, options.permutation ?? "auto");
  const progress = options.onProgress ?? (() => {});
  const tomb = hashLeaf(TOMBSTONE, leafMaxFields);
  const encoder = new TextEncoder();
  let rows = 0;
  let tiles = 0;
  try {
    return await store.readAsync(async (txn: Transaction) => {
      const head = store.head(txn);
      const nextSlot = head.nextSlot;
      for (const _ of store.rows("meta", txn)) rows++;

      // history
      let entries = 0;
      let last: ReturnType<typeof decodeHistory> | undefined;
      for (const { key, value } of store.rows("history", txn)) {
        rows++;
        const e = decodeHistory(value, store.dir);
        const n = key.length === 4 ? key.readUInt32BE(0) : -1;
        if (n !== entries || e.batch !== n)
          throw corrupt(
            `history row of batch ${n} is out of sequence (expected batch ${entries})`,
            `history row of batch ${n}`,
          );
        entries++;
        last = e;
      }
      progress({ phase: "history", done: entries, total: head.batch + 1 });
      if (
        last === undefined ||
        last.batch !== head.batch ||
        !digestEquals(last.root, head.root) ||
        last.nextSlot !== head.nextSlot
      ) {
        throw corrupt(
          `the history ends at batch ${last?.batch ?? "none"}, not at the head (batch ${head.batch} and its root)`,
        );
      }

      /**
       * Checks the stored tiles of layer t with indices in [jFrom, jTo) against the expected
       * nodes of their bottom level (sparse; absent = default) and appends their parents
       * (level 4t + h, non-default only) to `up`.
       */
      const verifyLayer = (
        t: number,
        jFrom: number,
        jTo: number,
        expected: Nodes,
        up: Nodes,
        leafLayer: boolean,
      ): void => {
        const h = layerHeight(depth, t);
        const width = 2 ** h;
        const base = TILE_HEIGHT * t;
        const positions = layerPositions(depth, t);
        const end = Number.isFinite(jTo) ? tileKey(t, jTo) : tileKey(t + 1, 0);
        const stored = new Map<number, Tile>();
        for (const { key, value } of store.rows("tiles", txn, { start: tileKey(t, jFrom), end })) {
          rows++;
          tiles++;
          const j = key.readUIntBE(1, 4) * 2 ** 32 + key.readUInt32BE(5);
          stored.set(j, Tile.decode(value, positions, `(layer ${t}, index ${j})`));
        }
        const at = new Map<number, number>();
        for (let k = 0; k < expected.count; k++) at.set(expected.idx[k]!, k);
        const visit = new Set<number>(stored.keys());
        for (const i of expected.idx) visit.add(Math.floor(i / width));
        const order = [...visit].sort((a, b) => a - b);
        const empty = new Tile();
        const offset = (r: number) => 2 ** (h + 1) - 2 ** (h - r + 1);
        const nodeOf = (tile: Tile, r: number, q: number): Uint32Array => {
          const bit = offset(r) + q;
          return tile.has(bit) ? tile.node(bit) : defaults[base + r]!;
        };
        // bottom rows against the expected nodes
        for (const j of order) {
          const tile = stored.get(j) ?? empty;
          for (let q = 0; q < width; q++) {
            const i = width * j + q;
            const k = at.get(i);
            const want = k === undefined ? defaults[base]! : expected.vals.subarray(8 * k, 8 * k + 8);
            if (!digestEquals(nodeOf(tile, 0, q), want)) {
              const where = `tile (layer ${t}, index ${j})`;
              if (leafLayer)
                throw corrupt(
                  `${where}: the leaf digest of slot ${i} is not h_leaf of ${i < nextSlot ? "its record row" : "Empty (the slot is beyond the next slot)"}`,
                  where,
                );
              throw corrupt(
                `${where}: node (level ${base}, index ${i}) is not h_node of its two children in tile (layer ${t - 1}, index ${i})`,
                where,
              );
            }
          }
        }
        // every node above the bottom row, and the parent of the tile, from the stored children
        const perTile = width - 1;
        const pairs = new Uint32Array(WIDTH * perTile * order.length);
        let p = 0;
        for (const j of order) {
          const tile = stored.get(j) ?? empty;
          for (let r = 1; r <= h; r++) {
            for (let q = 0; q < 2 ** (h - r); q++) {
              pairs.set(nodeOf(tile, r - 1, 2 * q), WIDTH * p);
              pairs.set(nodeOf(tile, r - 1, 2 * q + 1), WIDTH * p + RATE);
              p++;
            }
          }
        }
        const out = compressPairs(perm, pairs, p);
        p = 0;
        for (const j of order) {
          const tile = stored.get(j) ?? empty;
          for (let r = 1; r <= h; r++) {
            for (let q = 0; q < 2 ** (h - r); q++, p++) {
              const got = out.subarray(RATE * p, RATE * p + RATE);
              if (r < h) {
                if (!digestEquals(nodeOf(tile, r, q), got)) {
                  const where = `tile (layer ${t}, index ${j})`;
                  throw corrupt(
                    `${where}: node (level ${base + r}, index ${2 ** (h - r) * j + q}) is not h_node of its two children`,
                    where,
                  );
                }
              } else if (!digestEquals(got, defaults[base + h]!)) {
                up.push(j, out, RATE * p);
              }
            }
          }
        }
      };

      // records, leaves and tile layer 0, chunk by chunk
      const w0 = 2 ** layerHeight(depth, 0);
      const chunk = Math.max(w0, Math.floor((options.chunkSlots ?? 65_536) / w0) * w0);
      let level4 = new Nodes();
      const nonNfc: NonNfcRecord[] = [];
      let live = 0;
      let deleted = 0;
      for (let s0 = 0; s0 < nextSlot; s0 += chunk) {
        const s1 = Math.min(s0 + chunk, nextSlot);
        const builder = new PackedBuilder();
        const kinds = new Uint8Array(s1 - s0);
        let expect = s0;
        for (const { key, value } of store.rows("records", txn, { start: slotKey(s0), end: slotKey(s1) })) {
          rows++;
          const slot = readSlotKey(key);
          if (slot !== expect)
            throw corrupt(
              `slot ${expect} is below the next slot ${nextSlot} but has no record row`,
              `record row of slot ${expect}`,
            );
          const record = decodeRecord(value, slot);
          const indexed = store.slotOf(record.name, txn);
          if (indexed !== slot) {
            throw corrupt(
              `record row of slot ${slot} holds the name ${JSON.stringify(record.name)}, which the name index ${indexed === undefined ? "does not hold" : `maps to slot ${indexed}`}`,
              `record row of slot ${slot}`,
            );
          }
          const nfc = nfcFormOf(record.name);
          if (nfc !== undefined)
            nonNfc.push({
              name: record.name,
              nfc,
              slot,
              state: record.state === RecordState.Live ? "live" : "deleted",
            });
          if (record.state === RecordState.Live) {
            const name = encoder.encode(record.name);
            const { form, bytes } = valueParts(record.value);
            builder.add(slot, name, 0, name.length, form, bytes, 0, bytes.length);
            kinds[slot - s0] = 1;
            live++;
          } else {
            kinds[slot - s0] = 2;
            deleted++;
          }
          expect++;
        }
        if (expect !== s1)
          throw corrupt(
            `slot ${expect} is below the next slot ${nextSlot} but has no record row`,
            `record row of slot ${expect}`,
          );
        const packed = builder.take();
        const digests = packed.count > 0 ? (await pool.hash(packed)).digests : new Uint32Array(0);
        const leaves = new Nodes();
        leaves.vals = new Uint32Array(8 * (s1 - s0));
        let k = 0;
        for (let i = 0; i < s1 - s0; i++) {
          if (kinds[i] === 1) leaves.push(s0 + i, digests, 8 * k++);
          else leaves.push(s0 + i, tomb, 0);
        }
        verifyLayer(0, s0 / w0, Math.ceil(s1 / w0), leaves, level4, true);
        progress({ phase: "records", done: s1, total: nextSlot });
        await new Promise((resolve) => setImmediate(resolve));
      }
      verifyLayer(0, Math.ceil(nextSlot / w0), Infinity, new Nodes(), level4, true);
      for (const { key } of store.rows("records", txn, { start: slotKey(nextSlot) })) {
        throw corrupt(
          `record row of slot ${readSlotKey(key)} lies at or beyond the next slot ${nextSlot}`,
          `record row of slot ${readSlotKey(key)}`,
        );
      }
      if (live !== head.live || deleted !== head.deleted)
        throw corrupt(
          `the head counts ${head.live} live and ${head.deleted} deleted records; the record rows hold ${live} and ${deleted}`,
          "registry head row",
        );

      // upper tile layers, then the root
      const layers = tileLayers(depth);
      for (let t = 1; t < layers; t++) {
        const up = new Nodes();
        verifyLayer(t, 0, Infinity, level4, up, false);
        level4 = up;
        progress({ phase: "tiles", done: t, total: layers - 1 });
      }
      const top = level4.count === 0 ? defaults[depth]! : level4.vals.subarray(0, 8);
      if (level4.count > 1 || !digestEquals(top, head.root)) {
        throw corrupt(`the head root of batch ${head.batch} is not the root of the stored nodes`, "registry head row");
      }

      // name index
      let names = 0;
      for (const { key, value } of store.rows("names", txn)) {
        rows++;
        const slot = readSlotKey(value);
        if (slot >= nextSlot)
          throw corrupt(
            `name-index row of ${JSON.stringify(key.toString("utf8"))} points at slot ${slot}, at or beyond the next slot ${nextSlot}`,
            `name-index row of ${JSON.stringify(key.toString("utf8"))}`,
          );
        names++;
        if (names % 65_536 === 0) {
          progress({ phase: "names", done: names, total: nextSlot });
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      if (names !== nextSlot)
        throw corrupt(`the name index has ${names} rows; the registry has used ${nextSlot} slots`);
      progress({ phase: "names", done: names, total: nextSlot });
      return {
        batch: head.batch,
        root: head.root,
        records: nextSlot,
        live,
        deleted,
        names,
        tiles,
        historyEntries: entries,
        rows,
        nonNfc,
        ms: performance.now() - started,
      };
    });
  } finally {
    await pool.close();
  }
}
