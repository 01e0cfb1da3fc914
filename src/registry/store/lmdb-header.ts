/**
 * Sanity check of an LMDB data file's header (data.mdb) before LMDB maps it: LMDB trusts its file,
 * and a damaged one can crash the process. Used by both stores (store.ts, name-store.ts).
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { RegistryError } from "../errors.js";

const LMDB_MAGIC = 0xbeefc0de;
const META_AT = 24;

/**
 * Sanity check of data.mdb before LMDB maps it (LMDB trusts its file; a damaged one can crash
 * the process): both meta pages carry the LMDB magic and a known version, the page size is a
 * power of two, and the newer meta's last page lies inside the file.
 * @throws RegistryError `DB_CORRUPT`.
 */
export function checkLmdbFile(path: string): void {
  const bad = (why: string) =>
    new RegistryError("DB_CORRUPT", `${path} is not a usable LMDB data file: ${why}`, { path });
  let bytes: Buffer;
  let size: number;
  try {
    size = statSync(path).size;
    const fd = openSync(path, "r");
    try {
      bytes = Buffer.alloc(Math.min(size, 2 * 65536));
      readSync(fd, bytes, 0, bytes.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (size < 2 * 4096) throw bad(`${size} bytes is smaller than two meta pages`);
  const psize = bytes.readUInt32LE(META_AT + 24);
  if (psize < 512 || psize > 65536 || (psize & (psize - 1)) !== 0 || size < 2 * psize) throw bad(`page size ${psize}`);
  let newest: { txn: bigint; last: bigint } | undefined;
  for (const page of [0, psize]) {
    const magic = bytes.readUInt32LE(page + META_AT);
    const version = bytes.readUInt32LE(page + META_AT + 4);
    if (magic !== LMDB_MAGIC || version < 1 || version > 2)
      throw bad(`meta page ${page / psize} has magic ${magic.toString(16)} version ${version}`);
    const meta = {
      last: bytes.readBigUInt64LE(page + META_AT + 120),
      txn: bytes.readBigUInt64LE(page + META_AT + 128),
    };
    if (newest === undefined || meta.txn > newest.txn) newest = meta;
  }
  if ((newest!.last + 1n) * BigInt(psize) > BigInt(size))
    throw bad(`last page ${newest!.last} lies beyond the ${size}-byte file`);
}
