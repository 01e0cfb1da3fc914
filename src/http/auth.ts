/**
 * Bearer-token rule of the write routes: without a token the server is read-only (403
 * `READ_ONLY`); a missing or malformed `Authorization` header is 401 (`UNAUTHORIZED`, with
 * `WWW-Authenticate: Bearer`); a wrong token is 403 (`FORBIDDEN`). Tokens compare in constant
 * time (SHA-256 of both sides, then `timingSafeEqual`, so the length does not leak either). The
 * request's side is hashed by node:crypto (native, a few µs: every write checks it); `digest`,
 * the plain JavaScript SHA-256, hashes the server's token and is its reference.
 */
import * as nodeCrypto from "node:crypto";
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { sha256 } from "@noble/hashes/sha2.js";
import { HttpError } from "./errors.js";
import { errnoText } from "../errors.js";

/** Longest accepted token file (bytes). */
export const MAX_TOKEN_FILE_BYTES = 4096;

/**
 * The token in a token file, trimmed of surrounding whitespace.
 * @throws HttpError `BAD_TOKEN_FILE` (a start-up error, never an answer) if the file is missing, larger
 * than 4 KiB, empty after trimming, or holds whitespace or control characters inside the token.
 */
export function readTokenFile(path: string): string {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_TOKEN_FILE_BYTES)
      throw new HttpError("BAD_TOKEN_FILE", `${bytes.length} bytes, at most ${MAX_TOKEN_FILE_BYTES}`);
    text = bytes.toString("utf8");
  } catch (e) {
    throw new HttpError("BAD_TOKEN_FILE", `--token-file ${path}: cannot be used (${errnoText(e)})`);
  }
  const token = text.trim();
  if (token === "") throw new HttpError("BAD_TOKEN_FILE", `--token-file ${path}: the file is empty`);
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new HttpError("BAD_TOKEN_FILE", `--token-file ${path}: a token is printable ASCII without spaces`);
  return token;
}

/** SHA-256 of a token (its UTF-8 bytes): the reference of `fastDigest`. */
export const digest = (s: string): Uint8Array => sha256(utf8.encode(s));
const utf8 = new TextEncoder();

/** node:crypto's one-shot `hash` (Node ≥ 20.12; about a third of `createHash`'s cost), if there. */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Buffer }).hash;

/** `digest` by node:crypto's native SHA-256 (the same 32 bytes). */
export const fastDigest: (s: string) => Uint8Array =
  typeof oneShot === "function"
    ? (s) => oneShot("sha256", s, "buffer")
    : (s) => createHash("sha256").update(s, "utf8").digest();

/** Checks a request's `Authorization` header against the token (undefined: read-only server). */
export class BearerAuth {
  private readonly expected: Uint8Array | undefined;

  /** @param readOnlyWhy why a server without a token is read-only, for the `READ_ONLY` answer. */
  constructor(
    token: string | undefined,
    private readonly readOnlyWhy = "started without --token-file",
  ) {
    this.expected = token === undefined ? undefined : digest(token);
  }

  get readOnly(): boolean {
    return this.expected === undefined;
  }

  /** @throws HttpError 401 `UNAUTHORIZED`, 403 `FORBIDDEN` or 403 `READ_ONLY`. */
  check(header: string | string[] | undefined): void {
    if (this.expected === undefined) throw new HttpError("READ_ONLY", `this server is read-only (${this.readOnlyWhy})`);
    if (typeof header !== "string")
      throw new HttpError("UNAUTHORIZED", "Authorization: a bearer token is required (Authorization: Bearer <token>)");
    // the scheme is case-insensitive (RFC 9110 §11.1): "bearer" and "BEARER" are "Bearer"
    const m = /^Bearer +([\x21-\x7e]+)$/i.exec(header);
    if (!m) throw new HttpError("UNAUTHORIZED", 'Authorization: must be "Bearer <token>"');
    if (!timingSafeEqual(fastDigest(m[1]!), this.expected))
      throw new HttpError("FORBIDDEN", "Authorization: the token is not valid for this server");
  }
}
