/**
 * Signed notes (C2SP signed-note) with Ed25519 keys: the key hash, the verifier key text and the
 * opening of a note against one verifier key. A note is its text (non-empty, every line ending
 * in U+000A), a blank line, and signature lines `— NAME BASE64\n` (U+2014, a space, the key name,
 * a space, base64 of the 4-byte key hash followed by the 64-byte Ed25519 signature of the text).
 *
 * - key hash = the first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key), 0x01 being the
 *   Ed25519 signature type;
 * - verifier key = `NAME+HASH+KEY`: the name, the key hash as 8 lowercase hex characters, and
 *   base64 of 0x01 ‖ the 32-byte public key;
 * - a key name is non-empty UTF-8 with no Unicode space and no `+`.
 *
 * Verification runs Ed25519 from `@noble/curves` (RFC 8032 rules, not ZIP-215's), so this file
 * imports no Node built-in and runs in browsers (the `statesync-gkr/browser` entry); it loads no
 * database code. Base64 is the standard alphabet with padding (RFC 4648 §4).
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { RegistryError } from "../errors.js";

/** Signature type byte of Ed25519 keys. */
export const ED25519_TYPE = 0x01;

/** The line prefix of a signature: U+2014 EM DASH and a space. */
export const SIGNATURE_PREFIX = "\u2014 ";

/** A parsed verifier key. */
export interface VerifierKey {
  readonly name: string;
  /** The 4-byte key hash. */
  readonly hash: Uint8Array;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** The key as text (`NAME+HASH+KEY`). */
  readonly text: string;
}

/** Why a note did not open: a code of `RecordRejectCode` and a reason. */
export type NoteRejection = {
  readonly ok: false;
  readonly code: "CHECKPOINT_MALFORMED" | "CHECKPOINT_WRONG_KEY" | "CHECKPOINT_BAD_SIGNATURE";
  readonly reason: string;
};

const utf8 = new TextEncoder();

/** Base64 of bytes (no Buffer: this file also runs in browsers). */
export function base64Of(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined)
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Node's Buffer when there is one (its native base64, for proofs of hundreds of KB), else undefined (a browser). */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** Bytes of a standard padded base64 text, or undefined when it is not one. */
export function bytesOfBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  // Node's decoder skips what is not base64 and takes the URL alphabet too, but the text must
  // re-encode to itself, which only a standard padded base64 text does: the round trip is the
  // check (the alphabet's pattern below is the browser path's)
  if (NodeBuffer !== undefined) {
    const b = NodeBuffer.from(text, "base64");
    const out = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    return base64Of(out) === text ? out : undefined;
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bin = atob(text);
  const out = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return base64Of(out) === text ? out : undefined;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Why `name` is not a key name, or undefined. */
export function keyNameProblem(name: string): string | undefined {
  if (name.length === 0) return "a key name is not empty";
  if (/[\s+]/u.test(name)) return "a key name has no spaces and no '+'";
  if (/[\u0000-\u001f\u007f]/.test(name)) return "a key name has no control characters";
  return undefined;
}

/** The 4-byte key hash of an Ed25519 key: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[0..4]. */
export function keyHash(name: string, publicKey: Uint8Array): Uint8Array {
  const n = utf8.encode(name);
  const data = new Uint8Array(n.length + 2 + publicKey.length);
  data.set(n, 0);
  data[n.length] = 0x0a;
  data[n.length + 1] = ED25519_TYPE;
  data.set(publicKey, n.length + 2);
  return sha256(data).slice(0, 4);
}

/**
 * The verifier key text `NAME+HASH+KEY` of an Ed25519 public key.
 * @throws RegistryError `BAD_ORIGIN` for a name that is not a key name.
 */
export function formatVerifierKey(name: string, publicKey: Uint8Array): string {
  const problem = keyNameProblem(name);
  if (problem !== undefined)
    throw new RegistryError("BAD_ORIGIN", `origin ${JSON.stringify(name)}: ${problem}`, { origin: name });
  const typed = new Uint8Array(1 + publicKey.length);
  typed[0] = ED25519_TYPE;
  typed.set(publicKey, 1);
  return `${name}+${hex(keyHash(name, publicKey))}+${base64Of(typed)}`;
}

/**
 * Reads a verifier key `NAME+HASH+KEY` (an Ed25519 key: type 0x01, 32 bytes; the hash must be the key's).
 * @param field the option or field it came from, named in errors.
 * @throws RegistryError `BAD_VERIFIER_KEY` naming `field`.
 */
export function parseVerifierKey(text: string, field = "verifier key"): VerifierKey {
  const bad = (why: string) => new RegistryError("BAD_VERIFIER_KEY", `${field}: ${why}`, { field });
  const t = text.trim();
  const first = t.indexOf("+");
  const second = first < 0 ? -1 : t.indexOf("+", first + 1);
  if (first <= 0 || second < 0) throw bad("a verifier key is NAME+HASH+KEY (the line `ssgkr registry keygen` prints)");
  const name = t.slice(0, first);
  const hashText = t.slice(first + 1, second);
  const problem = keyNameProblem(name);
  if (problem !== undefined) throw bad(problem);
  if (!/^[0-9a-f]{8}$/.test(hashText))
    throw bad(`the key hash is 8 lowercase hex characters, got ${JSON.stringify(hashText)}`);
  const typed = bytesOfBase64(t.slice(second + 1));
  if (typed === undefined) throw bad("the key is not base64");
  if (typed.length !== 33 || typed[0] !== ED25519_TYPE)
    throw bad("the key is not an Ed25519 key (type 0x01 and 32 bytes)");
  const publicKey = typed.slice(1);
  const hash = keyHash(name, publicKey);
  if (hex(hash) !== hashText) throw bad(`the key hash ${hashText} is not the hash of the name and key (${hex(hash)})`);
  return { name, hash, publicKey, text: t };
}

/** The note text and its signature lines, or a rejection. */
function splitNote(note: string): { text: string; sigs: string[] } | NoteRejection {
  const malformed = (why: string): NoteRejection => ({
    ok: false,
    code: "CHECKPOINT_MALFORMED",
    reason: `the signed note is malformed: ${why}`,
  });
  if (!note.endsWith("\n")) return malformed("it does not end with a newline");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) return malformed("no blank line separates the text from the signatures");
  const text = note.slice(0, split + 1);
  if (text.length <= 1) return malformed("the text is empty");
  const sigs = note.slice(split + 2, -1).split("\n");
  for (const line of sigs)
    if (!line.startsWith(SIGNATURE_PREFIX))
      return malformed(
        `a signature line starts with "— " (U+2014 and a space), got ${JSON.stringify(line.slice(0, 40))}`,
      );
  return { text, sigs };
}

/**
 * Opens a signed note against one verifier key: the text when a signature line of that key
 * (its name and key hash) verifies, else a rejection. The first line of the key decides.
 * @returns `{ ok: true, text }` or `{ ok: false, code, reason }` with `CHECKPOINT_MALFORMED`,
 *   `CHECKPOINT_WRONG_KEY` (no signature of this key) or `CHECKPOINT_BAD_SIGNATURE`.
 */
export function openNote(note: string, key: VerifierKey): { readonly ok: true; readonly text: string } | NoteRejection {
  const parts = splitNote(note);
  if ("ok" in parts) return parts;
  const seen: string[] = [];
  for (const line of parts.sigs) {
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.lastIndexOf(" ");
    if (space <= 0)
      return {
        ok: false,
        code: "CHECKPOINT_MALFORMED",
        reason: 'the signed note is malformed: a signature line is "— NAME BASE64"',
      };
    const name = rest.slice(0, space);
    const blob = bytesOfBase64(rest.slice(space + 1));
    if (blob === undefined || blob.length < 5)
      return {
        ok: false,
        code: "CHECKPOINT_MALFORMED",
        reason: `the signed note is malformed: the signature of ${JSON.stringify(name)} is not base64 of a key hash and a signature`,
      };
    seen.push(`${name}+${hex(blob.subarray(0, 4))}`);
    if (name !== key.name || hex(blob.subarray(0, 4)) !== hex(key.hash)) continue;
    const signature = blob.subarray(4);
    const ok =
      signature.length === 64 && ed25519.verify(signature, utf8.encode(parts.text), key.publicKey, { zip215: false });
    if (!ok)
      return {
        ok: false,
        code: "CHECKPOINT_BAD_SIGNATURE",
        reason: `the signature of ${key.name}+${hex(key.hash)} does not verify over the note text: the note was altered or not signed by this key`,
      };
    return { ok: true, text: parts.text };
  }
  return {
    ok: false,
    code: "CHECKPOINT_WRONG_KEY",
    reason: `the note carries no signature of the key ${key.name}+${hex(key.hash)} (it is signed by ${seen.length > 0 ? seen.join(", ") : "no key"})`,
  };
}
