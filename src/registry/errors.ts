import { SsgkrError } from "../errors.js";

/**
 * Registry errors (docs/registry.md). A failing operation changes nothing in the database.
 *
 * Codes:
 * - `NAME_NOT_FOUND`: no record was ever registered under this name.
 * - `SLOT_OUT_OF_RANGE`: a slot is not an integer in [0, 2^depth).
 * - `NAME_EXISTS`: insert of a name that is already live.
 * - `NAME_DELETED`: insert of a name whose record is deleted (restore it instead: a name keeps its slot).
 * - `RECORD_ABSENT`: replace or delete of a slot/name that holds no live record.
 * - `RECORD_LIVE`: restore of a record that is live.
 * - `NOT_DELETED`: restore of a slot that was never used.
 * - `VALUE_TOO_LARGE`: the leaf encoding of a value exceeds the registry's leaf bound B.
 * - `BAD_VALUE`: a value that cannot be mapped (text over 65,535 bytes or not UTF-8, field not canonical).
 * - `BAD_NAME`: a name that is empty, longer than 1,024 UTF-8 bytes, or not encodable as UTF-8.
 * - `NAME_NOT_NFC`: a write (insert, replace, restore, import) of a record under a name that is not
 *   in Unicode NFC (`details.nfc` is its NFC form; name-form.ts).
 * - `BAD_RECORD`: a malformed input record (`details.line` is its 1-based line number).
 * - `IMPORT_REJECTED`: an import with `--on-error fail` met malformed records (`details.errors`); nothing was written.
 * - `BAD_SOURCE`: an input file or data source that cannot be read (missing, unknown format, too large).
 * - `SOURCE_MISSING`: the full pinned npm dataset is not installed (see docs/registry.md).
 * - `BAD_CONFIG`: depth outside [1, 48] or a leaf bound outside [20, 63].
 * - `CONFIG_MISMATCH`: options given for an existing registry differ from its stored configuration.
 * - `REGISTRY_FULL`: every slot of the tree is assigned.
 * - `CONCURRENT_UPDATE`: another writer committed between preparing and committing a batch.
 * - `BAD_BLOCK`: a block of updates with no update or more than 4,096 (name-block.ts), or a block
 *   description (block.json) that is not a v2 block of a valid depth and leaf bound (verify-block.ts).
 * - `HASH_FAILED`: a leaf-hashing worker failed (the batch was not committed).
 * - `PROOF_FAILED`: a statement to prove does not hold natively, or its proof does not verify
 *   (nothing committed).
 * - `KERNEL_MISMATCH`: the WASM Poseidon2 kernel disagrees with the TypeScript reference (the
 *   registry then hashes with the reference).
 * - `DB_MISSING`: no registry database at the directory.
 * - `DB_NOT_READY`: the registry at the directory is being created by another process, or its
 *   creation by an earlier version did not finish (`registry import` creates it).
 * - `DB_OUTDATED`: a slot registry of format version 1 (rows without checksums) or a name-keyed
 *   registry of format version 2 (no earlier tree rows) or 3 (one row per kept earlier value);
 *   `ssgkr registry upgrade` converts it in place.
 * - `ROOT_NOT_PROVABLE`: a root of the registry's history older than its retention window
 *   (`details.oldestRoot` and `details.oldestSize` name the oldest provable root and its batch).
 * - `ROOT_UNKNOWN`: a root that is not in the registry's history.
 * - `WRONG_MAPPING`: the directory holds a registry of another mapping than the store opening it
 *   (`details.mapping`); `openRegistry` (open-any.ts) opens either.
 * - `BAD_VERIFIER_KEY`: a verifier key that is not `NAME+HASH+KEY` of an Ed25519 key (checkpoint/note.ts).
 * - `BAD_SIGNING_KEY`: a signing key file that is missing, unreadable or malformed (checkpoint/signing-key.ts).
 * - `KEY_FILE_EXISTS`: `keygen` to a path that exists (a key file is never overwritten).
 * - `BAD_ORIGIN`: an origin (key name) that is empty or holds a space or `+`.
 * - `CHANGES_NOT_RECORDED`: a batch committed before the registry kept its change log
 *   (store/change-log.ts): no block proof of it can be made, so no consistency chain crosses it.
 * - `DB_CORRUPT`: the directory holds something that is not a consistent registry database, or a
 *   row is damaged (`details.row` names it when known).
 */
export class RegistryError extends SsgkrError<RegistryErrorCode> {}

/** Every code a `RegistryError` carries (meanings in docs/errors.md). */
export const REGISTRY_ERROR_CODES = [
  "NAME_NOT_FOUND",
  "SLOT_OUT_OF_RANGE",
  "NAME_EXISTS",
  "NAME_DELETED",
  "RECORD_ABSENT",
  "RECORD_LIVE",
  "NOT_DELETED",
  "VALUE_TOO_LARGE",
  "BAD_VALUE",
  "BAD_NAME",
  "NAME_NOT_NFC",
  "BAD_ROOT",
  "BAD_RECORD",
  "IMPORT_REJECTED",
  "BAD_SOURCE",
  "SOURCE_MISSING",
  "BAD_CONFIG",
  "CONFIG_MISMATCH",
  "REGISTRY_FULL",
  "KEY_COLLISION",
  "CONCURRENT_UPDATE",
  "HASH_FAILED",
  "PROOF_FAILED",
  "KERNEL_MISMATCH",
  "DB_MISSING",
  "DB_NOT_READY",
  "DB_OUTDATED",
  "ROOT_NOT_PROVABLE",
  "ROOT_UNKNOWN",
  "WRONG_MAPPING",
  "DB_CORRUPT",
  "BAD_BLOCK",
  "BAD_VERIFIER_KEY",
  "BAD_SIGNING_KEY",
  "KEY_FILE_EXISTS",
  "BAD_ORIGIN",
  "BAD_PROFILE",
  "CHANGES_NOT_RECORDED",
] as const;

/** The code of a `RegistryError`. */
export type RegistryErrorCode = (typeof REGISTRY_ERROR_CODES)[number];
