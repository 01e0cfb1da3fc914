/**
 * Checkpoints of a registry in the C2SP tlog-checkpoint text form, as signed notes (note.ts):
 *
 * ```text
 * ORIGIN
 * SIZE
 * ROOT
 *
 * — ORIGIN BASE64(key hash ‖ Ed25519 signature)
 * ```
 *
 * ORIGIN is the key name of the registry's signing key; SIZE is the batch number of the head the
 * checkpoint is about, in decimal without leading zeros; ROOT is base64 of the root's 32 bytes
 * (`rootBytes`: the 8 elements, little-endian u32 each). The signature covers the three lines,
 * each ending in U+000A. Lines after the third (extension lines) are read and ignored. This file
 * loads no database code.
 */
import type { Digest } from "../../hash/digest.js";
import { rootBytes, rootFromBytes } from "../root.js";
import { base64Of, bytesOfBase64, openNote, parseVerifierKey, type NoteRejection, type VerifierKey } from "./note.js";

/** What a checkpoint says: the registry (origin), the head's batch number (size) and its root. */
export interface CheckpointBody {
  readonly origin: string;
  readonly size: number;
  readonly root: Digest;
}

/** A checkpoint whose signature verified, or why it did not. */
export type CheckpointVerdict = ({ readonly ok: true } & CheckpointBody) | NoteRejection;

/** The note text of a checkpoint: origin, size and base64 root, each line ending in a newline. */
export function checkpointText(body: {
  readonly origin: string;
  readonly size: number;
  readonly root: ArrayLike<number> | string;
}): string {
  return `${body.origin}\n${body.size}\n${base64Of(rootBytes(body.root, "checkpoint root"))}\n`;
}

/** The origin, size and root of a checkpoint's note text, or a `CHECKPOINT_MALFORMED` rejection. */
export function parseCheckpointText(text: string): CheckpointBody | NoteRejection {
  const malformed = (why: string): NoteRejection => ({
    ok: false,
    code: "CHECKPOINT_MALFORMED",
    reason: `the checkpoint is malformed: ${why}`,
  });
  const lines = text.split("\n");
  lines.pop();
  if (lines.length < 3)
    return malformed(`its text has ${lines.length} lines, a checkpoint has at least 3 (origin, size, root)`);
  const [origin, sizeText, rootText] = lines as [string, string, string];
  if (origin === "") return malformed("the origin line is empty");
  if (!/^(0|[1-9][0-9]{0,15})$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)))
    return malformed(
      `the size line is a decimal number without leading zeros, got ${JSON.stringify(sizeText.slice(0, 40))}`,
    );
  const bytes = bytesOfBase64(rootText);
  if (bytes === undefined || bytes.length !== 32) return malformed("the root line is base64 of the root's 32 bytes");
  let root: Digest;
  try {
    root = rootFromBytes(bytes, "checkpoint root");
  } catch (e) {
    return malformed((e as Error).message);
  }
  if (lines.slice(3).some((l) => l === "")) return malformed("an extension line is empty");
  return { origin, size: Number(sizeText), root };
}

/**
 * Checks a signed checkpoint against the verifier key you trust and reads it: the signature line
 * of that key must verify over the note text, and the text must be a checkpoint.
 * @param note the checkpoint as served (`GET /v1/checkpoint`, `ssgkr registry checkpoint`).
 * @param verifierKey `NAME+HASH+KEY` as `ssgkr registry keygen` prints it, or a parsed key.
 * @returns `{ ok: true, origin, size, root }` or `{ ok: false, code, reason }` with
 *   `CHECKPOINT_MALFORMED`, `CHECKPOINT_WRONG_KEY` or `CHECKPOINT_BAD_SIGNATURE`.
 * @throws RegistryError `BAD_VERIFIER_KEY` for a verifier key that cannot be read.
 * @example
 *   const c = verifyCheckpoint(await (await fetch(`${url}/v1/checkpoint`)).text(), "example.com/reg+1a2b3c4d+AX…");
 *   if (c.ok) console.log(c.size, formatRoot(c.root));
 */
export function verifyCheckpoint(
  note: string,
  verifierKey: string | VerifierKey,
  field = "verifierKey",
): CheckpointVerdict {
  const key = typeof verifierKey === "string" ? parseVerifierKey(verifierKey, field) : verifierKey;
  const opened = openNote(note, key);
  if (!opened.ok) return opened;
  const body = parseCheckpointText(opened.text);
  if ("ok" in body) return body;
  return { ok: true, ...body };
}
