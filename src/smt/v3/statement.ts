/**
 * Statements of profile v3 (docs/profile-v3.md §2) and the public half of the input vector they
 * define (§3). A statement is everything the verifier knows about one operation:
 *
 * - membership:     the root, the key and the Occupied leaf;
 * - non-membership: the root and the key (the leaf, Empty or a Tombstone, stays private);
 * - update:         the old and the new root, the key, the new leaf and a rule the old leaf obeys
 *                   (`any`, `empty`, `tombstone`, or `record`: Occupied with this identity and any
 *                   payload), which stays private otherwise.
 *
 * The statement digest (§5.2) is the sponge of [key as four 16-bit limbs, the public half without
 * its key bits], zero-padded to whole 8-lane blocks (the op kind is bound by the transcript's
 * header); the transcript absorbs the digests of the operations in order.
 */
import { digest, type Digest } from "../../hash/digest.js";
import { P } from "../../field/koalabear.js";
import { currentHashBackend, type HashBackend } from "../../hash/index.js";
import { OpKind } from "../../statement/types.js";
import { SmtError } from "../errors.js";
import { type Leaf, type OccupiedLeaf, LeafTag, writeFoldedLeaf, writeIdentityLimbs } from "../leaf.js";
import { checkKeyInRange } from "../path.js";
import { RULE_IDENTITY, RULE_RECORD_FLAG, RULE_TAG_FLAG, RULE_TAG_VALUE, type V3Layout } from "./layout.js";

/** What an update's old leaf is known to be (its value stays private). */
export type V3OldLeafRule =
  | { readonly rule: "any" }
  | { readonly rule: "empty" }
  | { readonly rule: "tombstone" }
  | { readonly rule: "record"; readonly identity: Uint8Array };

/** One operation as the verifier knows it. */
export type V3Statement =
  | { readonly kind: OpKind.Membership; readonly root: Digest; readonly key: bigint; readonly leaf: OccupiedLeaf }
  | { readonly kind: OpKind.NonMembership; readonly root: Digest; readonly key: bigint }
  | {
      readonly kind: OpKind.Update;
      readonly oldRoot: Digest;
      readonly newRoot: Digest;
      readonly key: bigint;
      readonly newLeaf: Leaf;
      readonly oldLeaf: V3OldLeafRule;
    };

/** Writes the 12 rule lanes of an update's old-leaf rule at out[at…] (lanes of rule `any` stay zero). */
function writeRuleLanes(rule: V3OldLeafRule, out: Uint32Array, at: number): void {
  if (rule === null || typeof rule !== "object")
    throw new SmtError(
      "BAD_LEAF",
      `an old-leaf rule must be an object {rule: "any" | "empty" | "tombstone" | "record"}, got ${String(rule)}`,
    );
  switch (rule.rule) {
    case "any":
      return;
    case "empty":
      out[at + RULE_TAG_FLAG] = 1;
      out[at + RULE_TAG_VALUE] = LeafTag.Empty;
      return;
    case "tombstone":
      out[at + RULE_TAG_FLAG] = 1;
      out[at + RULE_TAG_VALUE] = LeafTag.Tombstone;
      return;
    case "record": {
      writeIdentityLimbs(rule.identity, out, at + RULE_IDENTITY);
      out[at + RULE_RECORD_FLAG] = 1;
      return;
    }
    default:
      throw new SmtError(
        "BAD_LEAF",
        `unknown old-leaf rule ${JSON.stringify((rule as { rule: unknown }).rule)} (any, empty, tombstone, record)`,
      );
  }
}

/** Writes a root's 8 elements at out[at…], each checked canonical (as `digest` checks them). */
function writeRoot(root: ArrayLike<number>, what: string, out: Uint32Array, at: number): void {
  if (root?.length !== 8) {
    digest(root, what); // throws the error `digest` gives
    return;
  }
  for (let i = 0; i < 8; i++) {
    const v = root[i];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v >= P) {
      digest(root, what);
      return;
    }
    out[at + i] = v;
  }
}

/**
 * The public half of one copy's input vector (`layout.publicUsed` lanes, lane 0 = the copy's lane
 * `layout.half`): key bits, roots, the public pre-image, the update rule lanes.
 * @throws SmtError `OP_KIND_MISMATCH` (a statement of another kind), `BAD_KEY`, `KEY_OUT_OF_RANGE`,
 *   `BAD_LEAF`, `LEAF_ENCODING`; FieldError for a root that is not 8 canonical elements.
 */
export function publicHalf(layout: V3Layout, statement: V3Statement): Uint32Array {
  const out = new Uint32Array(layout.publicUsed);
  writePublicHalf(layout, statement, out, 0);
  return out;
}

/**
 * Writes `publicHalf(layout, statement)` at out[at … at + publicUsed) (lanes that must be zero
 * beforehand), e.g. into a table holding many statements' halves.
 * @throws as `publicHalf` (lanes already written stay).
 */
export function writePublicHalf(layout: V3Layout, statement: V3Statement, out: Uint32Array, at: number): void {
  if (statement === null || typeof statement !== "object" || statement.kind !== layout.kind) {
    throw new SmtError(
      "OP_KIND_MISMATCH",
      `a ${layout.kind} circuit needs a ${layout.kind} statement, got ${statement === null || typeof statement !== "object" ? String(statement) : String(statement.kind)}`,
    );
  }
  const h = layout.half - at;
  const key = checkKeyInRange(statement.key, layout.depth);
  // the key as two exact 32-bit halves (one BigInt split instead of one per bit)
  const lo = Number(key & 0xffffffffn),
    hi = Number(key >> 32n);
  for (let l = 0; l < layout.depth; l++) out[layout.keyBits - h + l] = l < 32 ? (lo >>> l) & 1 : (hi >>> (l - 32)) & 1;
  if (statement.kind === OpKind.Update) {
    writeRoot(statement.oldRoot, "old_root", out, layout.roots - h);
    writeRoot(statement.newRoot, "new_root", out, layout.roots - h + 8);
  } else writeRoot(statement.root, "root", out, layout.roots - h);
  const leaf =
    statement.kind === OpKind.Membership ? statement.leaf : statement.kind === OpKind.Update ? statement.newLeaf : null;
  if (leaf !== null) {
    if (statement.kind === OpKind.Membership && leaf?.tag !== LeafTag.Occupied)
      throw new SmtError("BAD_LEAF", "a membership statement's leaf must be Occupied");
    const t = layout.prePublic.indexOf(true);
    writeFoldedLeaf(out, layout.preOf[t]! - h, leaf, layout.leafMaxFields);
  }
  if (statement.kind === OpKind.Update) writeRuleLanes(statement.oldLeaf, out, layout.rule - h);
}

/** Lanes of a statement digest's pre-image (4 key limbs, the public half without key bits), padded to 8. */
export function statementPreimageLength(layout: V3Layout): number {
  return 8 * Math.ceil((4 + layout.publicUsed - layout.depth) / 8);
}

/** Writes the digest pre-image of a statement whose public half is half[from … from + publicUsed) at pre[at…]. */
function writePreimage(
  layout: V3Layout,
  key: bigint,
  half: Uint32Array,
  from: number,
  pre: Uint32Array,
  at: number,
): void {
  const k = BigInt.asUintN(64, key);
  const lo = Number(k & 0xffffffffn),
    hi = Number(k >> 32n);
  pre[at] = lo & 0xffff;
  pre[at + 1] = lo >>> 16;
  pre[at + 2] = hi & 0xffff;
  pre[at + 3] = hi >>> 16;
  const rest = layout.publicUsed - layout.depth;
  for (let i = 0; i < rest; i++) pre[at + 4 + i] = half[from + layout.depth + i]!;
}

/** The pre-image of one statement's digest (`statementPreimageLength` lanes). @throws as `publicHalf`. */
export function statementPreimage(layout: V3Layout, statement: V3Statement): Uint32Array {
  const pre = new Uint32Array(statementPreimageLength(layout));
  writePreimage(layout, statement.key, publicHalf(layout, statement), 0, pre, 0);
  return pre;
}

/**
 * The statement digests of many operations at once (8 lanes each, operation i at [8i, 8i + 8)),
 * from their public halves: block b of every pre-image through one batched permutation call.
 * Reference: `sponge(statementPreimage(…))` per operation (test/sync/v3/input-claims.test.ts).
 * @param halves the public halves (`publicHalf`), one per statement.
 */
export function statementDigests(
  layout: V3Layout,
  keys: readonly bigint[],
  halves: readonly Uint32Array[],
  permute: HashBackend["permuteMany"] = (s, n) => currentHashBackend().permuteMany(s, n),
): Uint32Array {
  const n = halves.length;
  const len = statementPreimageLength(layout);
  const pre = new Uint32Array(len * n);
  for (let i = 0; i < n; i++) writePreimage(layout, keys[i]!, halves[i]!, 0, pre, len * i);
  return digestsOfPreimages(pre, len, n, permute);
}

/**
 * `statementDigests` of the first `keys.length` halves of a table that holds half i at
 * words[i·stride …] (a public table, `publicTable`).
 */
export function statementDigestsOfTable(
  layout: V3Layout,
  keys: readonly bigint[],
  words: Uint32Array,
  stride: number,
  permute: HashBackend["permuteMany"] = (s, n) => currentHashBackend().permuteMany(s, n),
): Uint32Array {
  const n = keys.length;
  const len = statementPreimageLength(layout);
  const pre = new Uint32Array(len * n);
  for (let i = 0; i < n; i++) writePreimage(layout, keys[i]!, words, i * stride, pre, len * i);
  return digestsOfPreimages(pre, len, n, permute);
}

/** The sponge digests of n pre-images of `len` lanes stored back to back, block by block in one batch. */
function digestsOfPreimages(
  pre: Uint32Array,
  len: number,
  n: number,
  permute: HashBackend["permuteMany"],
): Uint32Array {
  const states = new Uint32Array(16 * n);
  for (let b = 0; b < len / 8; b++) {
    // (8-word copies as loops: a subarray per copy would allocate n views per block)
    for (let i = 0; i < n; i++) {
      const from = len * i + 8 * b,
        to = 16 * i;
      for (let j = 0; j < 8; j++) states[to + j] = pre[from + j]!;
    }
    permute(states, n);
  }
  const out = new Uint32Array(8 * n);
  for (let i = 0; i < n; i++) out.set(states.subarray(16 * i, 16 * i + 8), 8 * i);
  return out;
}
