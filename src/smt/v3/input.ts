/**
 * The input vectors of K profile v3 copies (docs/profile-v3.md §3), prover side: the v2 input
 * vectors (`buildV2Inputs`: pre-images, sponge capacities, path accumulators, siblings, computed
 * natively in lock step) rearranged into the committed half, the public half written from each
 * copy's statement (`publicHalf`, the verifier's own function), and the update selector.
 */
import { InternalError, SsgkrError } from "../../errors.js";
import { OpKind } from "../../statement/types.js";
import { LeafTag, encodeLeaf } from "../leaf.js";
import type { OpRequest } from "../operation.js";
import { atOperation, buildV2Inputs } from "../v2/input-batch.js";
import { type V2Layout, v2Layout } from "../v2/layout.js";
import { MIN_OCCUPIED_LENGTH, type V3Layout } from "./layout.js";
import { publicHalf, type V3OldLeafRule, type V3Statement } from "./statement.js";

/**
 * The statement a request proves (the prover's view; the verifier builds its own).
 * @param rule the update's old-leaf rule (default `any`); ignored for the other kinds.
 */
export function v3StatementOf(request: OpRequest, rule: V3OldLeafRule = { rule: "any" }): V3Statement {
  const op = request.operation;
  const pub = request.publicInputs;
  if (op.kind === OpKind.Membership) return { kind: op.kind, root: pub.oldRoot, key: op.key, leaf: op.leaf };
  if (op.kind === OpKind.NonMembership) return { kind: op.kind, root: pub.oldRoot, key: op.key };
  return { kind: op.kind, oldRoot: pub.oldRoot, newRoot: pub.newRoot, key: op.key, newLeaf: op.newLeaf, oldLeaf: rule };
}

/** The v2 layout whose input vectors `buildV3Inputs` rearranges. */
export function v2LayoutOf(layout: V3Layout): V2Layout {
  return v2Layout(layout.kind, layout.depth, layout.leafMaxFields);
}

/**
 * The K input vectors back to back (copy c at [c·2^s, (c + 1)·2^s)), each [committed half |
 * public half]. `statements[c]` is copy c's statement (its public half); `requests[c]` its witness.
 * @throws the first failing copy's error (its details carrying `operation`): those of
 *   `buildV2Inputs` and of `publicHalf`.
 */
export function buildV3Inputs(
  layout: V3Layout,
  requests: readonly OpRequest[],
  statements: readonly V3Statement[],
): Uint32Array {
  const l2 = v2LayoutOf(layout);
  const v2 = buildV2Inputs(l2, requests);
  const S2 = 2 ** l2.inputBits,
    S = 2 ** layout.inputBits;
  const K = requests.length;
  const out = new Uint32Array(S * K);
  const nb = layout.spongeBlocks;
  const halves = new Map<V3Statement, Uint32Array>();
  for (let c = 0; c < K; c++) {
    const src = S2 * c,
      dst = S * c;
    out.set(v2.subarray(src + l2.exp, src + l2.exp + 8 * l2.permutations), dst + layout.exp);
    out.set(v2.subarray(src + l2.sib, src + l2.sib + 8 * layout.depth), dst + layout.sib);
    for (let t = 0; t < layout.paths; t++) {
      if (layout.prePublic[t]) continue;
      const from = src + l2.pre + 8 * t * nb;
      out.set(v2.subarray(from, from + 8 * nb), dst + layout.preOf[t]!);
    }
    const st = statements[c]!;
    let half = halves.get(st);
    if (half === undefined) {
      try {
        half = publicHalf(layout, st);
      } catch (err) {
        if (err instanceof SsgkrError) throw atOperation(err, c);
        throw err;
      }
      halves.set(st, half);
    }
    out.set(half, dst + layout.half);
    const op = requests[c]!.operation;
    if (
      layout.kind === OpKind.Update &&
      st.kind === OpKind.Update &&
      st.oldLeaf?.rule === "record" &&
      op.kind === OpKind.Update &&
      op.oldLeaf.tag === LeafTag.Occupied
    ) {
      const n = encodeLeaf(op.oldLeaf).length;
      if (n >= MIN_OCCUPIED_LENGTH && n - MIN_OCCUPIED_LENGTH < layout.selCount)
        out[dst + layout.sel + n - MIN_OCCUPIED_LENGTH] = 1;
    }
  }
  return out;
}

/** The committed halves of K input vectors, back to back (copy c at [c·H, (c + 1)·H)): the polynomial the prover commits to. */
export function committedHalves(layout: V3Layout, inputs: Uint32Array): Uint32Array {
  const S = 2 ** layout.inputBits,
    H = layout.half;
  const K = inputs.length / S;
  if (!Number.isInteger(K))
    throw new InternalError(`committedHalves: ${inputs.length} values are not whole copies of 2^${layout.inputBits}`);
  const out = new Uint32Array(H * K);
  for (let c = 0; c < K; c++) out.set(inputs.subarray(S * c, S * c + H), H * c);
  return out;
}
