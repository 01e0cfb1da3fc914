/**
 * The proof body exchanged over HTTP — `{statement, request, proof}` with the proof bytes in
 * base64 — and its check against what the reader trusts. `GET /v1/records/{name}/proof` and every
 * write return such a body; `POST /v1/verify` and the browser page check it with `checkProofBody`,
 * so both give the same verdicts.
 */
import type { Digest } from "../hash/digest.js";
import { SsgkrError } from "../errors.js";
import { claimOf, ClaimError, describeStatement, formatRoot, NAME_KEYED_MAPPING, type StatementJson } from "./claim.js";
import { DEFAULT_LEAF_MAX_FIELDS } from "../smt/leaf.js";
import { DEFAULT_NAME_DEPTH } from "../registry/name-key.js";
import { base64Of } from "../registry/checkpoint/note.js";
import { verifyNameStatement, type NameCheckTimings } from "./verify.js";
import { checkedFromStatement } from "../codec/v3/message.js";

/** A proof body as JSON. */
export interface ProofBody {
  readonly statement: StatementJson;
  /** The request (compat-v1 §16.2 field names); absent beside a profile v3 proof, which is checked from the statement alone. */
  readonly request?: Record<string, unknown>;
  /** inner-proof-v1 bytes (or inner-proof-v3 bytes), base64. */
  readonly proof: string;
}

/** The verdict on a proof body. */
export interface BodyVerdict {
  readonly ok: boolean;
  readonly code?: string;
  readonly reason?: string;
  /** What the statement says, in words (what was proved when ok). */
  readonly statement: string;
  /** The root the check trusted, 64 hex characters. */
  readonly trustedRoot?: string;
  /** Where the trusted root came from: the caller, or (unpinned) the statement itself. */
  readonly rootSource: "given" | "statement";
  /** Set when no root was given: the check then only shows the proof matches its own statement. */
  readonly notice?: string;
  /** What the accepted proof covers under this mapping. */
  readonly scope?: string;
  /**
   * The accepted proof's profile, read from its bytes: `"v1"` (compat-v1), `"v3"` (checked from
   * the statement alone) or `"v3-zk"` (profile v3's zero-knowledge mode, docs/profile-v3.md §11:
   * the proof reveals nothing about the path beyond the statement).
   */
  readonly profile?: "v1" | "v3" | "v3-zk";
  /** An accepted proof about a name not in Unicode NFC: the name's NFC form, and a notice that the answer is about the exact spelling. */
  readonly nfcName?: string;
  readonly nameNotice?: string;
  readonly prepareMs: number;
  readonly verifyMs: number;
}

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes of a base64 text. @throws ClaimError `BAD_CLAIM` naming `field`. */
export function base64Bytes(text: unknown, field = "proof"): Uint8Array {
  if (typeof text !== "string" || text.length % 4 !== 0 || !B64.test(text))
    throw new ClaimError("BAD_CLAIM", `${field}: must be the proof bytes in base64`, { field });
  if (NodeBuffer !== undefined) {
    const b = NodeBuffer.from(text, "base64");
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Node's Buffer when there is one (its native base64), else undefined (a browser: `atob`/`btoa`). */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** Base64 of bytes (`base64Of` of the checkpoint notes: Node's native encoder when there is one, a 100 KB proof in well under a millisecond). */
export function bytesBase64(bytes: Uint8Array): string {
  return base64Of(bytes);
}

/** The `notice` of a verdict checked without a trusted root. */
export const UNPINNED_NOTICE =
  "no trusted root was given: the proof was checked against the root its own statement names, which shows only that the proof matches its statement; pin the root you trust";

/**
 * Checks a proof body against the reader's trust.
 * @param name the name the reader asked about (default: the statement's own name). A body whose
 *   statement is about another name is rejected (`NAME_MISMATCH`) before anything is verified;
 *   `statement` (the words) always describes the body's own statement, never the name asked for.
 * @param trustedRoot the root the reader trusts (for an update: the root before it); without it
 *   the statement's root is used and the verdict carries `notice`.
 * Never throws: malformed bodies get `ok: false` with a code (`BAD_CLAIM`, `BAD_ROOT`, `REQUEST_SCHEMA`, …).
 */
export function checkProofBody(body: unknown, name?: string, trustedRoot?: Digest): BodyVerdict {
  const timings: NameCheckTimings = { prepareMs: 0, verifyMs: 0 };
  const base = {
    rootSource: trustedRoot === undefined ? ("statement" as const) : ("given" as const),
    ...(trustedRoot === undefined ? { notice: UNPINNED_NOTICE } : {}),
  };
  let words = "(no statement)";
  try {
    if (typeof body !== "object" || body === null)
      throw new ClaimError("BAD_CLAIM", "body: must be an object {statement, request, proof}", { field: "body" });
    const b = body as Record<string, unknown>;
    const statement = b.statement as StatementJson;
    const claim = claimOf(statement, trustedRoot);
    // the words are always the proof's own statement: a verdict never names another name
    words = describeStatement(statement);
    if (name !== undefined && claim.name !== name)
      return {
        ok: false,
        code: "NAME_MISMATCH",
        reason: `the proof's statement is about ${JSON.stringify(claim.name)}, not about the name asked for, ${JSON.stringify(name)}`,
        statement: words,
        ...base,
        ...timings,
      };
    const bytes = base64Bytes(b.proof, "proof");
    if (b.request === undefined && !checkedFromStatement(bytes, false))
      throw new ClaimError(
        "BAD_CLAIM",
        "request: missing (a compat-v1 proof is checked with its request; only a profile v3 proof is checked from the statement alone)",
        { field: "request" },
      );
    const v = verifyNameStatement(claim, b.request, bytes, timings);
    const trusted = formatRoot(claim.trustedRoot);
    if (v.ok)
      return {
        ok: true,
        statement: words,
        trustedRoot: trusted,
        scope: v.scope,
        profile: v.profile,
        ...(v.nfcName !== undefined ? { nfcName: v.nfcName, nameNotice: v.nameNotice } : {}),
        ...base,
        ...timings,
      };
    return { ok: false, code: v.code, reason: v.reason, statement: words, trustedRoot: trusted, ...base, ...timings };
  } catch (err) {
    if (err instanceof SsgkrError)
      return { ok: false, code: err.code, reason: err.message, statement: words, ...base, ...timings };
    throw err;
  }
}

/**
 * The configuration (depth, leaf bound) a name-keyed statement of a v3 body names, its defaults
 * filled in (depth 48, leaf bound 31): what checking a profile v3 proof of it prepares a circuit
 * for. Undefined for a statement that is not name-keyed or whose fields are not numbers (the check
 * rejects those before preparing anything).
 * @example statementConfigOf({ registry_mapping: "record-leaf-v2", depth: 20 }) // { depth: 20, leafMaxFields: 31 }
 */
export function statementConfigOf(s: unknown): { depth: number; leafMaxFields: number } | undefined {
  if (typeof s !== "object" || s === null) return undefined;
  const st = s as { registry_mapping?: unknown; depth?: unknown; leaf_max_fields?: unknown };
  if (st.registry_mapping !== NAME_KEYED_MAPPING) return undefined;
  const depth = st.depth ?? DEFAULT_NAME_DEPTH,
    leafMaxFields = st.leaf_max_fields ?? DEFAULT_LEAF_MAX_FIELDS;
  return typeof depth === "number" && typeof leafMaxFields === "number" ? { depth, leafMaxFields } : undefined;
}
