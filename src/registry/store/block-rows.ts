/**
 * The block proofs a name-keyed registry keeps (docs/registry.md "Block proofs"): each profile v3
 * block that `prove-block` commits is stored in `meta`, inside the batch's write transaction, so a
 * committed block always has its proof and a block that did not commit has none. Two sealed rows
 * per block, keyed by the batch number in ten decimal digits (so key order is batch order):
 *
 * - `block-summary:<batch>`: JSON `{batch, profile, operations, from_root, to_root, proof_bytes,
 *   json_bytes}` (what a listing shows, without reading the block);
 * - `block:<batch>`: u32 LE byte length of block.json ‖ block.json (UTF-8) ‖ block.bin.
 *
 * A batch of more updates than one block proof holds at the registry's depth (`maxBlockUpdates`,
 * block-size.ts) is proved in parts (consistency/replay.ts), each a block from the root the part before left: its rows are keyed
 * `block-summary:<batch>.<part>` and `block:<batch>.<part>` (the part in five digits, from 0), and
 * its summaries (and block.json) also carry `part` and `parts`. Key order is (batch, part) order.
 *
 * The bytes are those of the block directory's files, so a stored block verifies exactly as the
 * directory does (`ssgkr registry verify-block`, `POST /v1/verify`).
 */
import { RegistryError } from "../errors.js";

/** Key prefix of the stored blocks' summary rows in `meta`. */
export const BLOCK_SUMMARY_PREFIX = "block-summary:";
/** Key prefix of the stored blocks' rows (block.json and block.bin) in `meta`. */
export const BLOCK_ROW_PREFIX = "block:";

/** What a listing of stored blocks shows of one block (snake_case as block.json). */
export interface StoredBlockSummary {
  /** The registry batch the block committed. */
  readonly batch: number;
  /** The block's proof profile (`"v3"`: checked from the roots and block.json alone). */
  readonly profile: "v3";
  /** Updates in the block. */
  readonly operations: number;
  /** Root before the block: 64 hex characters. */
  readonly from_root: string;
  /** Root after the block: 64 hex characters. */
  readonly to_root: string;
  /** Bytes of block.bin. */
  readonly proof_bytes: number;
  /** Bytes of block.json. */
  readonly json_bytes: number;
  /** A part of a batch proved in parts (0-based; absent for a batch of one block). */
  readonly part?: number;
  /** The parts of that batch (absent for a batch of one block; otherwise ≥ 2). */
  readonly parts?: number;
}

/** A stored block: its summary, block.json's text and block.bin's bytes. */
export interface StoredBlock {
  readonly summary: StoredBlockSummary;
  readonly blockJson: string;
  readonly proof: Uint8Array;
}

/**
 * The `meta` key of a block row (`block:` or `block-summary:` and the batch in ten digits; a part
 * of a batch proved in parts adds `.` and the part in five digits).
 */
export function blockRowKey(
  prefix: typeof BLOCK_ROW_PREFIX | typeof BLOCK_SUMMARY_PREFIX,
  batch: number,
  part?: number,
): Buffer {
  const p = part === undefined ? "" : `.${String(part).padStart(5, "0")}`;
  return Buffer.from(`${prefix}${String(batch).padStart(10, "0")}${p}`, "latin1");
}

/** The value of a `block:` row. */
export function encodeBlockRow(blockJson: string, proof: Uint8Array): Uint8Array {
  const json = Buffer.from(blockJson, "utf8");
  const out = new Uint8Array(4 + json.length + proof.length);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  out.set(proof, 4 + json.length);
  return out;
}

/** The block.json text and block.bin bytes of a `block:` row. @throws RegistryError `DB_CORRUPT`. */
export function decodeBlockRow(row: Uint8Array, what: string): { blockJson: string; proof: Uint8Array } {
  if (row.length < 4)
    throw new RegistryError("DB_CORRUPT", `${what}: ${row.length} bytes, shorter than its length field`);
  const n = new DataView(row.buffer, row.byteOffset, row.byteLength).getUint32(0, true);
  if (4 + n > row.length)
    throw new RegistryError("DB_CORRUPT", `${what}: block.json of ${n} bytes does not fit in ${row.length - 4}`);
  return {
    blockJson: Buffer.from(row.buffer, row.byteOffset + 4, n).toString("utf8"),
    proof: new Uint8Array(row.subarray(4 + n)),
  };
}

/** The value of a `block-summary:` row. */
export function encodeBlockSummary(s: StoredBlockSummary): Uint8Array {
  return Buffer.from(JSON.stringify(s), "utf8");
}

/** A `block-summary:` row's summary. @throws RegistryError `DB_CORRUPT`. */
export function decodeBlockSummary(row: Uint8Array, what: string): StoredBlockSummary {
  let s: Partial<Record<keyof StoredBlockSummary, unknown>>;
  try {
    s = JSON.parse(Buffer.from(row.buffer, row.byteOffset, row.byteLength).toString("utf8")) as typeof s;
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `${what}: not JSON (${(e as Error).message})`);
  }
  const count = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;
  const hex = (v: unknown) => typeof v === "string" && /^[0-9a-f]{64}$/.test(v);
  if (
    s === null ||
    typeof s !== "object" ||
    !count(s.batch) ||
    s.profile !== "v3" ||
    !count(s.operations) ||
    !hex(s.from_root) ||
    !hex(s.to_root) ||
    !count(s.proof_bytes) ||
    !count(s.json_bytes) ||
    (s.part === undefined) !== (s.parts === undefined) ||
    (s.parts !== undefined &&
      (!count(s.parts) || (s.parts as number) < 2 || !count(s.part) || (s.part as number) >= (s.parts as number)))
  ) {
    throw new RegistryError("DB_CORRUPT", `${what}: not a block summary`);
  }
  return s as StoredBlockSummary;
}
