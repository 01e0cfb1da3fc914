/**
 * Native replay of a block of updates from its requests (what an auditor holding every path would
 * run instead of a proof): every update's old and new leaf hashed and walked up its siblings to a
 * root, all paths in lock step through the batched permutation (one call per sponge block and per
 * level), then the chain of roots compared.
 */
import { currentHashBackend } from "../../src/hash/index.js";
import { digestEquals } from "../../src/hash/digest.js";
import { foldLeaf } from "../../src/smt/leaf.js";
import type { OpRequest, UpdateOp } from "../../src/smt/operation.js";

/** True iff the updates of `requests` (update requests with their witnesses) take `from` to `to`. */
export function nativeReplay(
  requests: readonly OpRequest[],
  from: Uint32Array,
  to: Uint32Array,
  leafMaxFields: number,
): boolean {
  const n = requests.length,
    paths = 2 * n;
  const permute = currentHashBackend();
  const ops = requests.map((r) => r.operation as UpdateOp);
  const pres = ops.flatMap((op) => [foldLeaf(op.oldLeaf, leafMaxFields), foldLeaf(op.newLeaf, leafMaxFields)]);
  const nb = pres[0]!.length / 8;
  const states = new Uint32Array(16 * paths);
  for (let c = 0; c < nb; c++) {
    for (let j = 0; j < paths; j++) states.set(pres[j]!.subarray(8 * c, 8 * c + 8), 16 * j);
    permute.permuteMany(states, paths);
  }
  const depth = requests[0]!.witness.siblings.length;
  // key bits as numbers (two exact 32-bit halves), not one BigInt shift per level
  const lo = ops.map((op) => Number(op.key & 0xffffffffn)),
    hi = ops.map((op) => Number(op.key >> 32n));
  for (let l = 0; l < depth; l++) {
    for (let j = 0; j < paths; j++) {
      const u = j >> 1;
      const sib = requests[u]!.witness.siblings[l]!;
      const s = 16 * j;
      const bit = l < 32 ? (lo[u]! >>> l) & 1 : (hi[u]! >>> (l - 32)) & 1;
      if (bit === 0) states.set(sib, s + 8);
      else {
        states.copyWithin(s + 8, s, s + 8);
        states.set(sib, s);
      }
    }
    permute.permuteMany(states, paths);
  }
  let root = from;
  for (let i = 0; i < n; i++) {
    if (!digestEquals(states.subarray(32 * i, 32 * i + 8), root)) return false;
    root = states.subarray(32 * i + 16, 32 * i + 24);
  }
  return digestEquals(root, to);
}
