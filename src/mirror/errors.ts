import { SsgkrError } from "../errors.js";

/**
 * Errors of a registry mirror (`ssgkr registry mirror`, src/mirror, docs/scale-out.md "Registry
 * mirrors"). Two kinds:
 *
 * - the primary could not be followed (the mirror retries them while it follows; with `--once`
 *   they end it): `MIRROR_UNREACHABLE`, `MIRROR_TIMEOUT`, `MIRROR_TOO_LARGE`,
 *   `MIRROR_NOT_REGISTRY`, `MIRROR_SERVER_ERROR`, `MIRROR_PENDING`;
 * - the primary showed something that does not verify (the mirror halts: it applies nothing
 *   more, keeps serving its last verified state and writes the evidence): `MIRROR_BAD_SIGNATURE`,
 *   `MIRROR_WRONG_ORIGIN`, `MIRROR_BAD_CHAIN`, `MIRROR_FORK`, `MIRROR_ROOT_MISMATCH`;
 *
 * and `MIRROR_DB_MISMATCH`: the `--db` folder is not a mirror of this primary (another key, another
 * configuration, or a registry that is no mirror); `MIRROR_DB_IN_USE`: another process mirrors
 * into that folder (registry/store/folder-hold.ts).
 */
export class MirrorError extends SsgkrError<MirrorErrorCode> {}

/** Every code a `MirrorError` carries (meanings in docs/errors.md). */
export const MIRROR_ERROR_CODES = [
  "MIRROR_UNREACHABLE",
  "MIRROR_TIMEOUT",
  "MIRROR_TOO_LARGE",
  "MIRROR_NOT_REGISTRY",
  "MIRROR_SERVER_ERROR",
  "MIRROR_PENDING",
  "MIRROR_BAD_SIGNATURE",
  "MIRROR_WRONG_ORIGIN",
  "MIRROR_BAD_CHAIN",
  "MIRROR_FORK",
  "MIRROR_ROOT_MISMATCH",
  "MIRROR_DB_MISMATCH",
  "MIRROR_DB_IN_USE",
] as const;

/** The code of a `MirrorError`. */
export type MirrorErrorCode = (typeof MIRROR_ERROR_CODES)[number];

const HALTING: readonly string[] = [
  "MIRROR_BAD_SIGNATURE",
  "MIRROR_WRONG_ORIGIN",
  "MIRROR_BAD_CHAIN",
  "MIRROR_FORK",
  "MIRROR_ROOT_MISMATCH",
];

/** Whether an error halts a mirror (the primary showed something that does not verify). */
export function haltsMirror(e: unknown): e is MirrorError {
  return e instanceof MirrorError && HALTING.includes(e.code);
}
