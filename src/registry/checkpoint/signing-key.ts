/**
 * The registry's Ed25519 signing key (Node only): generated into a key file of mode 0600, read
 * back, and used to sign checkpoints. The key file is one line in the signed-note signer-key
 * form `PRIVATE+KEY+NAME+HASH+BASE64(0x01 ‖ 32-byte seed)`, NAME being the origin.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { RegistryError } from "../errors.js";
import { errnoText } from "../../errors.js";
import { checkpointText } from "./checkpoint.js";
import {
  base64Of,
  bytesOfBase64,
  ED25519_TYPE,
  formatVerifierKey,
  keyHash,
  keyNameProblem,
  SIGNATURE_PREFIX,
} from "./note.js";

/** The default origin of `ssgkr registry keygen`. */
export const DEFAULT_ORIGIN = "ssgkr-registry";

const PREFIX = "PRIVATE+KEY+";
/** PKCS #8 DER prefix of an Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519 = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/** A signing key read from its file. */
export interface SigningKey {
  /** The key name: the origin of the registry's checkpoints. */
  readonly origin: string;
  readonly publicKey: Uint8Array;
  /** `NAME+HASH+KEY`, what verifiers are given. */
  readonly verifierKey: string;
  readonly hash: Uint8Array;
  readonly privateKey: KeyObject;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const fromBase64Url = (s: string) => Uint8Array.from(Buffer.from(s, "base64url"));

/** The signing key of a 32-byte seed. @throws RegistryError `BAD_ORIGIN`. */
export function signingKeyOfSeed(origin: string, seed: Uint8Array): SigningKey {
  const der = new Uint8Array(PKCS8_ED25519.length + 32);
  der.set(PKCS8_ED25519, 0);
  der.set(seed, PKCS8_ED25519.length);
  const privateKey = createPrivateKey({ key: Buffer.from(der), format: "der", type: "pkcs8" });
  const publicKey = fromBase64Url(createPublicKey(privateKey).export({ format: "jwk" }).x!);
  return {
    origin,
    publicKey,
    verifierKey: formatVerifierKey(origin, publicKey),
    hash: keyHash(origin, publicKey),
    privateKey,
  };
}

/** The key file text of a seed (one line). */
export function signingKeyText(origin: string, seed: Uint8Array): string {
  const key = signingKeyOfSeed(origin, seed);
  const typed = new Uint8Array(33);
  typed[0] = ED25519_TYPE;
  typed.set(seed, 1);
  return `${PREFIX}${origin}+${hex(key.hash)}+${base64Of(typed)}\n`;
}

/**
 * Generates a signing key into `path` (created with mode 0600; an existing file is never
 * overwritten) and returns it.
 * @throws RegistryError `KEY_FILE_EXISTS`, `BAD_ORIGIN`, `BAD_SIGNING_KEY` (the file cannot be written).
 * @example
 *   const key = generateSigningKey("registry.key", "example.com/registry");
 *   console.log(key.verifierKey); // example.com/registry+1a2b3c4d+AX…
 */
export function generateSigningKey(path: string, origin = DEFAULT_ORIGIN): SigningKey {
  const problem = keyNameProblem(origin);
  if (problem !== undefined)
    throw new RegistryError("BAD_ORIGIN", `origin ${JSON.stringify(origin)}: ${problem}`, { origin });
  if (existsSync(path))
    throw new RegistryError(
      "KEY_FILE_EXISTS",
      `${path} exists; a key file is never overwritten (remove it first, or choose another path)`,
      { path },
    );
  const { privateKey } = generateKeyPairSync("ed25519");
  const seed = fromBase64Url(privateKey.export({ format: "jwk" }).d!);
  try {
    writeFileSync(path, signingKeyText(origin, seed), { mode: 0o600, flag: "wx" });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST")
      throw new RegistryError("KEY_FILE_EXISTS", `${path} exists; a key file is never overwritten`, { path });
    throw new RegistryError("BAD_SIGNING_KEY", `${path}: cannot write the key file (${code ?? (e as Error).message})`, {
      path,
    });
  }
  return signingKeyOfSeed(origin, seed);
}

/**
 * Reads a signing key file (`ssgkr registry keygen`); messages name it as `option` (default
 * `--signing-key`) and its path.
 * @throws RegistryError `BAD_SIGNING_KEY` (missing, unreadable or malformed file; the hash not the key's).
 */
export function readSigningKey(path: string, option = "--signing-key"): SigningKey {
  const bad = (why: string) => new RegistryError("BAD_SIGNING_KEY", `${option} ${path}: ${why}`, { path, option });
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (e) {
    throw bad(`cannot read the key file (${errnoText(e)})`);
  }
  if (!text.startsWith(PREFIX))
    throw bad(
      `not a signing key file (a signing key file starts with PRIVATE+KEY+; \`ssgkr registry keygen\` writes one, and a verifier key is not one)`,
    );
  const rest = text.slice(PREFIX.length);
  const first = rest.indexOf("+");
  const second = first < 0 ? -1 : rest.indexOf("+", first + 1);
  if (first <= 0 || second < 0) throw bad("a key file is PRIVATE+KEY+NAME+HASH+KEY");
  const origin = rest.slice(0, first);
  const problem = keyNameProblem(origin);
  if (problem !== undefined) throw bad(problem);
  const typed = bytesOfBase64(rest.slice(second + 1));
  if (typed === undefined || typed.length !== 33 || typed[0] !== ED25519_TYPE)
    throw bad("the key is not an Ed25519 seed (base64 of type 0x01 and 32 bytes)");
  const key = signingKeyOfSeed(origin, typed.slice(1));
  if (hex(key.hash) !== rest.slice(first + 1, second)) throw bad("the key hash is not the hash of the name and key");
  return key;
}

/**
 * The signed checkpoint of a head: the note text (origin, size, base64 root) and the signature line.
 * @param head `size` is the head's batch number, `root` its root.
 */
export function signCheckpoint(
  key: SigningKey,
  head: { readonly size: number; readonly root: ArrayLike<number> | string },
): string {
  const text = checkpointText({ origin: key.origin, size: head.size, root: head.root });
  let signed = SIGNED.get(key);
  if (signed === undefined) {
    signed = new Map();
    SIGNED.set(key, signed);
  }
  const kept = signed.get(text);
  if (kept !== undefined) return kept;
  const signature = sign(null, Buffer.from(text, "utf8"), key.privateKey);
  const blob = new Uint8Array(4 + signature.length);
  blob.set(key.hash, 0);
  blob.set(signature, 4);
  const note = `${text}\n${SIGNATURE_PREFIX}${key.origin} ${base64Of(blob)}\n`;
  if (signed.size >= SIGNED_KEPT) signed.delete(signed.keys().next().value!);
  signed.set(text, note);
  return note;
}

/**
 * The notes signed last, by key and checkpoint text. Ed25519 signs deterministically (RFC 8032),
 * so a kept note is the note signing again would give: a server answers every write of an epoch,
 * and every `GET /v1/checkpoint` of a head, with one signature.
 */
const SIGNED = new WeakMap<SigningKey, Map<string, string>>();
/** Notes kept per key (the oldest goes first). */
const SIGNED_KEPT = 64;
