/**
 * The input vectors of K profile v2 operations at once (docs/profile-v2.md §5.1), for aggregates
 * and blocks (§10): the same vectors as K calls of `buildV2Input` (the plain reference), with the
 * permutations run in lock step through a batched permutation (the hashing backend's `permuteMany`, the WASM SIMD
 * kernel): sponge block c of every path of every operation in one call, then path level l of
 * every path in one call, so nb + d calls in all whatever K. Operations equal to the first
 * occurrence of the same request object (e.g. the dummy padding an aggregate) are built once and
 * copied. Differential tests: test/smt/v2/input-batch.test.ts.
 */
import { SsgkrError } from "../../errors.js";
import { digest } from "../../hash/digest.js";
import { type HashBackend, currentHashBackend } from "../../hash/index.js";
import { OpKind } from "../../statement/types.js";
import { SmtError } from "../errors.js";
import { type Leaf, encodeLeaf, foldEncoding } from "../leaf.js";
import type { OpRequest } from "../operation.js";
import { checkKey, checkSiblings, keyBit } from "../path.js";
import type { V2Layout } from "./layout.js";

/** One operation's checked values (everything `buildV2Input` reads, in its order of checks). */
interface Checked {
  readonly pres: Uint32Array[];
  readonly siblings: Uint32Array[];
  readonly bits: Uint8Array;
  readonly roots: Uint32Array[];
  readonly valueDigest: Uint32Array;
}

function check(layout: V2Layout, request: OpRequest): Checked {
  const op = request.operation;
  if (layout.kind === OpKind.Update && op.kind !== OpKind.Update) {
    throw new SmtError("OP_KIND_MISMATCH", `an Update circuit needs an Update operation, got kind ${op.kind}`);
  }
  const d = layout.depth;
  const siblings = checkSiblings(request.witness.siblings, d);
  const key = checkKey(op.key);
  const leaves: Leaf[] = op.kind === OpKind.Update ? [op.oldLeaf, op.newLeaf] : [request.witness.leaf];
  const pub = request.publicInputs;
  const roots = [digest(pub.oldRoot, "old_root"), digest(pub.newRoot, "new_root")];
  const pres: Uint32Array[] = [];
  for (let t = 0; t < layout.paths; t++) pres.push(foldEncoding(encodeLeaf(leaves[t]!), layout.leafMaxFields));
  const bits = new Uint8Array(d);
  for (let l = 0; l < d; l++) bits[l] = keyBit(key, l);
  return { pres, siblings, bits, roots, valueDigest: digest(pub.valueDigest, "value_digest") };
}

/** The error of operation i, with `operation: i` added to its details (same class and code). */
export function atOperation(err: SsgkrError, i: number): SsgkrError {
  const Ctor = err.constructor as new (code: string, message: string, details: Record<string, unknown>) => SsgkrError;
  return new Ctor(err.code, err.message, { ...err.details, operation: i });
}

/**
 * Builds the input vectors of `requests` back to back: operation i at [i·2^inputBits, (i+1)·2^inputBits),
 * each equal to `buildV2Input(layout, requests[i])`.
 * @param permute the batched permutation (default this thread's `currentHashBackend().permuteMany`;
 *   `typescriptHashBackend.permuteMany` for the TypeScript reference).
 * @throws the first failing operation's error of `buildV2Input` (same class and code), its details
 *   carrying `operation`: the index of that request.
 */
export function buildV2Inputs(
  layout: V2Layout,
  requests: readonly OpRequest[],
  permute: HashBackend["permuteMany"] = (states, n) => currentHashBackend().permuteMany(states, n),
): Uint32Array {
  const size = 2 ** layout.inputBits;
  const K = requests.length;
  const out = new Uint32Array(size * K);
  // Distinct request objects, in first-occurrence order; repeats are copied at the end.
  const firstOf = new Map<OpRequest, number>();
  const distinct: number[] = [];
  const checked: Checked[] = [];
  for (let i = 0; i < K; i++) {
    const r = requests[i]!;
    if (firstOf.has(r)) continue;
    try {
      checked.push(check(layout, r));
    } catch (err) {
      if (err instanceof SsgkrError) throw atOperation(err, i);
      throw err;
    }
    firstOf.set(r, i);
    distinct.push(i);
  }
  const n = distinct.length;
  const d = layout.depth,
    nb = layout.spongeBlocks,
    paths = layout.paths;
  const chains = n * paths;
  const states = new Uint32Array(16 * chains);
  // Leaf sponges: block c of every chain in one call.
  // (8-word copies are written out as loops: a subarray per copy would allocate K·paths views per step)
  for (let c = 0; c < nb; c++) {
    for (let j = 0; j < n; j++) {
      const ch = checked[j]!;
      for (let t = 0; t < paths; t++) {
        const pre = ch.pres[t]!,
          s = 16 * (j * paths + t),
          from = 8 * c;
        for (let i = 0; i < 8; i++) states[s + i] = pre[from + i]!;
      }
    }
    permute(states, chains);
    if (c < nb - 1) {
      for (let j = 0; j < n; j++) {
        const base = size * distinct[j]!;
        for (let t = 0; t < paths; t++) {
          const s = 16 * (j * paths + t),
            o = base + layout.exp + 8 * (t * layout.perPath + c);
          for (let i = 0; i < 8; i++) out[o + i] = states[s + 8 + i]!;
        }
      }
    }
  }
  // Path levels: acc_l (lanes 0..7 of each state) and the sibling, ordered by key bit l.
  for (let l = 0; l < d; l++) {
    for (let j = 0; j < n; j++) {
      const ch = checked[j]!;
      const sib = ch.siblings[l]!;
      const bit = ch.bits[l]!;
      const base = size * distinct[j]!;
      for (let t = 0; t < paths; t++) {
        const s = 16 * (j * paths + t),
          o = base + layout.exp + 8 * (t * layout.perPath + nb - 1 + l);
        for (let i = 0; i < 8; i++) out[o + i] = states[s + i]!;
        if (bit === 0) {
          for (let i = 0; i < 8; i++) states[s + 8 + i] = sib[i]!;
        } else {
          for (let i = 0; i < 8; i++) {
            states[s + 8 + i] = states[s + i]!;
            states[s + i] = sib[i]!;
          }
        }
      }
    }
    permute(states, chains);
  }
  for (let j = 0; j < n; j++) {
    const ch = checked[j]!;
    const base = size * distinct[j]!;
    for (let t = 0; t < paths; t++) {
      out.set(ch.pres[t]!, base + layout.pre + 8 * t * nb);
      out.set(ch.roots[t]!, base + layout.exp + 8 * (t * layout.perPath + nb - 1 + d));
    }
    for (let l = 0; l < d; l++) {
      out.set(ch.siblings[l]!, base + layout.sib + 8 * l);
      out[base + layout.keyBits + l] = ch.bits[l]!;
    }
    out.set(ch.valueDigest, base + layout.value);
  }
  for (let i = 0; i < K; i++) {
    const f = firstOf.get(requests[i]!)!;
    if (f !== i) out.copyWithin(size * i, size * f, size * (f + 1));
  }
  return out;
}
