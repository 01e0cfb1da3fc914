/**
 * The block body exchanged over HTTP — `{block, proof}`: a profile v3 registry block's block.json
 * (the object, or its text) and its block.bin (base64) — and its check against the roots the
 * reader trusts. `POST /v1/verify` and the browser page check it with `checkBlockBody`, so both
 * give the same verdicts; the check itself is `verifyRegistryBlock`'s v3 path (the statements
 * from block.json alone, then `verifyBlockV3`), as `ssgkr registry verify-block` runs it.
 */
import type { Digest } from "../hash/digest.js";
import { SsgkrError } from "../errors.js";
import { preparedUpdateV3 } from "../registry/block-v3.js";
import { parseBlockDescription, verifyRegistryBlock, type BlockDescription } from "../registry/verify-block.js";
import { formatRoot, parseRoot } from "../registry/root.js";
import { base64Bytes, UNPINNED_NOTICE, type BodyVerdict } from "./body.js";

/** A block body as JSON. */
export interface BlockBody {
  /** block.json as `prove-block --profile v3` writes it: the parsed object, or its text. */
  readonly block: Record<string, unknown> | string;
  /** block.bin (inner-proof-v3, proof kind 2): base64, or the bytes themselves. */
  readonly proof: string | Uint8Array;
}

/** The verdict on a block body: a `BodyVerdict` (the trusted root is the block's from root) with the block's own facts. */
export interface BlockBodyVerdict extends BodyVerdict {
  /** The update to blame (its index in block.json's `updates`, from 0), when the verdict names one. */
  readonly operation?: number;
  /** Updates block.json lists (once it parses). */
  readonly operations?: number;
  /** The roots the check used, 64 hex characters each (`fromRoot` is also `trustedRoot`). */
  readonly fromRoot?: string;
  readonly toRoot?: string;
  /** Where the to root came from: the caller, or block.json's `to_root`. */
  readonly toRootSource?: "given" | "statement";
  readonly depth?: number;
  readonly leafMaxFields?: number;
}

/** The roots a reader checks a block against; without `fromRoot` the check is unpinned (block.json's own `from_root`), without `toRoot` it ends at block.json's `to_root`. */
export interface BlockRoots {
  readonly fromRoot?: Digest;
  readonly toRoot?: Digest;
}

/** block.json's text of a body's `block` (text as is, an object serialized). */
function blockText(block: unknown): string | undefined {
  if (typeof block === "string") return block;
  if (typeof block === "object" && block !== null && !Array.isArray(block)) return JSON.stringify(block);
  return undefined;
}

/**
 * The circuit configuration a block body names (block.json's `depth` and `leaf_max_fields`), read
 * without parsing its updates; undefined when `block` is not an object (or its text) with both
 * as integers (the check then rejects it without preparing anything).
 */
export function blockConfigOf(block: unknown): { readonly depth: number; readonly leafMaxFields: number } | undefined {
  let v: unknown = block;
  if (typeof block === "string") {
    try {
      v = JSON.parse(block);
    } catch {
      return undefined;
    }
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const depth = o.depth,
    leafMaxFields = o.leaf_max_fields;
  return Number.isInteger(depth) && Number.isInteger(leafMaxFields)
    ? { depth: depth as number, leafMaxFields: leafMaxFields as number }
    : undefined;
}

/** What a block says, in words. */
export function describeBlock(d: BlockDescription, from: string, to: string): string {
  const counts = new Map<string, number>();
  for (const u of d.updates) counts.set(u.op, (counts.get(u.op) ?? 0) + 1);
  const ops = [...counts].map(([op, n]) => `${n} ${op}`).join(", ");
  return `block of ${d.updates.length} update${d.updates.length === 1 ? "" : "s"} (${ops}; depth ${d.depth}, leaf bound ${d.leafMaxFields}) takes root ${from} to root ${to}`;
}

/** A root block.json names (`from_root`, `to_root`). @throws RegistryError `BAD_ROOT` naming the field. */
function listedRoot(text: string, key: "from_root" | "to_root"): Digest | undefined {
  const v = (JSON.parse(text) as Record<string, unknown>)[key];
  return v === undefined ? undefined : parseRoot(v, `block.${key}`);
}

/**
 * Checks a block body against the reader's roots: the registry went from `fromRoot` to `toRoot`
 * by exactly the updates block.json lists, in order (docs/registry.md "Block proofs").
 * Checks, first failure decides: `block` is an object or its text and `proof` base64 or bytes
 * (`BAD_CLAIM`); block.json parses as a profile v3 block of at most 4,096 updates (`BLOCK_JSON`);
 * the roots block.json lists where the caller gives none (`BAD_ROOT`, `BLOCK_JSON` when missing);
 * then `verifyRegistryBlock` (its codes: `PUBLIC_INPUTS_MISMATCH` naming the update,
 * `OPERATION_COUNT`, `DECODE_<code>`, `GKR_<code>`, `PCS_<code>`, …). The v3 update circuit of the
 * block's configuration is prepared once per process (`prepareMs` about 0 after the first).
 * @param roots what the reader trusts; without `fromRoot` the verdict carries `notice` (unpinned).
 * Never throws on bad input.
 * @example
 *   const v = checkBlockBody({ block: blockJsonText, proof: blockBin }, { fromRoot, toRoot });
 *   v.ok ? v.statement : `${v.code}: ${v.reason}`;
 */
export function checkBlockBody(body: unknown, roots: BlockRoots = {}): BlockBodyVerdict {
  const base = {
    rootSource: roots.fromRoot === undefined ? ("statement" as const) : ("given" as const),
    ...(roots.fromRoot === undefined ? { notice: UNPINNED_NOTICE } : {}),
  };
  let words = "(no block)";
  let prepareMs = 0,
    verifyMs = 0;
  const fail = (code: string, reason: string, extra: Partial<BlockBodyVerdict> = {}): BlockBodyVerdict => ({
    ok: false,
    code,
    reason,
    statement: words,
    ...base,
    ...extra,
    prepareMs,
    verifyMs,
  });
  try {
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return fail("BAD_CLAIM", "body: must be an object {block, proof}");
    const b = body as Record<string, unknown>;
    const text = blockText(b.block);
    if (text === undefined) return fail("BAD_CLAIM", "block: must be block.json (the object, or its text)");
    const proof = b.proof instanceof Uint8Array ? b.proof : base64Bytes(b.proof, "proof");
    let d: BlockDescription;
    try {
      d = parseBlockDescription(text);
    } catch (e) {
      if (e instanceof SsgkrError) return fail("BLOCK_JSON", `block.json: ${e.message}`);
      throw e;
    }
    const config = { operations: d.updates.length, depth: d.depth, leafMaxFields: d.leafMaxFields };
    if (d.profile !== "v3")
      return fail(
        "BLOCK_JSON",
        `block.json: profile ${JSON.stringify(d.profile)}; this check takes profile v3 blocks (a v2 block is checked with its requests.json by ssgkr registry verify-block)`,
        config,
      );
    const from = roots.fromRoot ?? listedRoot(text, "from_root");
    const to = roots.toRoot ?? listedRoot(text, "to_root");
    if (from === undefined) return fail("BLOCK_JSON", "block.json: no from_root, and no from root was given", config);
    if (to === undefined) return fail("BLOCK_JSON", "block.json: no to_root, and no to root was given", config);
    const checked = {
      ...config,
      fromRoot: formatRoot(from),
      toRoot: formatRoot(to),
      toRootSource: roots.toRoot === undefined ? ("statement" as const) : ("given" as const),
      trustedRoot: formatRoot(from),
    };
    words = describeBlock(d, checked.fromRoot, checked.toRoot);
    const t0 = performance.now();
    preparedUpdateV3(d.depth, d.leafMaxFields);
    const t1 = performance.now();
    prepareMs = t1 - t0;
    const v = verifyRegistryBlock({ fromRoot: from, toRoot: to }, { blockJson: text, proof });
    verifyMs = performance.now() - t1;
    if (v.ok) return { ok: true, statement: words, ...base, ...checked, prepareMs, verifyMs };
    return fail(v.code, v.reason, { ...checked, ...(v.operation !== undefined ? { operation: v.operation } : {}) });
  } catch (err) {
    if (err instanceof SsgkrError) return fail(err.code, err.message);
    throw err;
  }
}
