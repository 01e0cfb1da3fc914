/**
 * SMT circuit compilation, strategy A (compat-v1 §9.3–9.6). The construction order below fixes
 * node ids, hence wire numbers, emission order and the §12 commitment.
 */
import { CircuitBuilder, type CircuitTags, type NodeId } from "../gkr/builder.js";
import type { Circuit } from "../gkr/circuit.js";
import { syncConfig, type SyncConfig } from "./config.js";
import { OpKind } from "../statement/types.js";
import { CompileError } from "./errors.js";
import { inputLayout, type InputLayout } from "./layout.js";
import { emitPermutation } from "./poseidon2-gadget.js";

/** Family ids of §9.3 (add PATH_BASE_NEW for Update's new-leaf path). */
export const Family = {
  LeafSponge: 0,
  PreImage: 1,
  Accumulator: 2,
  LeafResidual: 3,
  Sibling: 4,
  KeyBit: 5,
  Multiplexer: 6,
  NodeHash: 7,
  NodeResidual: 8,
  RootInput: 9,
  RootResidual: 10,
  ValueDigest: 32,
  Booleanity: 33,
  TagResidual: 34,
} as const;

/** Path base of Update's new-leaf path (the primary path has base 0). */
export const PATH_BASE_NEW = 16;

/** A compiled circuit with everything needed to prove, verify and commit to it. */
export interface CompiledCircuit {
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly circuit: Circuit;
  /** Per-gate scope tags (not committed; for a derived wiring, §10.6). */
  readonly tags: CircuitTags;
  readonly layout: InputLayout;
  /** 8d + 24 + d (+1 NonMembership); Update 16d + 40 + d. */
  readonly outputCount: number;
}

function checkKind(kind: unknown): OpKind {
  if (kind !== OpKind.Membership && kind !== OpKind.NonMembership && kind !== OpKind.Update) {
    throw new CompileError(
      "BAD_KIND",
      `operation kind must be "membership", "nonmembership" or "update", got ${typeof kind === "string" ? JSON.stringify(kind) : String(kind)}`,
    );
  }
  return kind;
}

/**
 * compile(kind, config) (§9): builds the layered circuit that checks the leaf sponge, every path
 * hash step, the root, the value digest, the key-bit booleanity and (NonMembership) the leaf tag.
 * All outputs are 0 exactly on an honest input vector (§9.2).
 * @param kind operation kind (`OpKind`: "membership", "nonmembership", "update").
 * @param config depth 1..64, leaf bound 10..65535, strategy A (defaults: 24, 31, A).
 * @throws CompileError `BAD_KIND`, `UNSUPPORTED_CONFIG`.
 */
export function compile(kind: OpKind, config: Partial<SyncConfig> = {}): CompiledCircuit {
  checkKind(kind);
  const cfg = syncConfig(config);
  const layout = inputLayout(kind, cfg.depth, cfg.leafMaxFields);
  const d = cfg.depth;
  const lw = layout.foldWidth;
  const b = new CircuitBuilder();
  const outputs: NodeId[] = [];

  const buildPath = (f: number, leafBase: number, accBase: number, rootBase: number): void => {
    const pre: NodeId[] = [];
    for (let j = 0; j < lw; j++) {
      b.scope(f + Family.PreImage, j);
      pre.push(b.input(leafBase + j));
    }
    const acc: NodeId[][] = [];
    for (let l = 0; l <= d; l++) {
      b.scope(f + Family.Accumulator, l);
      const lanes: NodeId[] = [];
      for (let i = 0; i < 8; i++) lanes.push(b.input(accBase + 8 * l + i));
      acc.push(lanes);
    }
    b.scope(f + Family.LeafSponge, 0);
    const z = b.constant(0);
    let state: NodeId[] | null = null;
    for (let c = 0; c < lw; c += 8) {
      const lanes = pre.slice(c, c + 8).concat(state ? state.slice(8, 16) : new Array<NodeId>(8).fill(z));
      state = emitPermutation(b, lanes);
    }
    const h = state!.slice(0, 8);
    for (let i = 0; i < 8; i++) {
      b.scope(f + Family.LeafResidual, i);
      outputs.push(b.sub(h[i]!, acc[0]![i]!));
    }
    for (let l = 0; l < d; l++) {
      b.scope(f + Family.Sibling, l);
      const sib: NodeId[] = [];
      for (let i = 0; i < 8; i++) sib.push(b.input(layout.siblings + 8 * l + i));
      b.scope(f + Family.KeyBit, l);
      const s = b.input(layout.keyBits + l);
      b.scope(f + Family.Multiplexer, l);
      const left: NodeId[] = [];
      const right: NodeId[] = [];
      for (let i = 0; i < 8; i++) {
        const d1 = b.sub(sib[i]!, acc[l]![i]!);
        const d2 = b.sub(acc[l]![i]!, sib[i]!);
        const m1 = b.mul(s, d1);
        const m2 = b.mul(s, d2);
        left.push(b.sum([acc[l]![i]!, m1]));
        right.push(b.sum([sib[i]!, m2]));
      }
      b.scope(f + Family.NodeHash, l);
      const node = emitPermutation(b, left.concat(right)).slice(0, 8);
      b.scope(f + Family.NodeResidual, l);
      for (let i = 0; i < 8; i++) outputs.push(b.sub(node[i]!, acc[l + 1]![i]!));
    }
    const root: NodeId[] = [];
    for (let i = 0; i < 8; i++) {
      b.scope(f + Family.RootInput, i);
      root.push(b.input(rootBase + i));
    }
    for (let i = 0; i < 8; i++) {
      b.scope(f + Family.RootResidual, i);
      outputs.push(b.sub(acc[d]![i]!, root[i]!));
    }
    b.clearScope();
  };

  buildPath(0, layout.leafPre, layout.acc, layout.root);
  if (kind === OpKind.Update) buildPath(PATH_BASE_NEW, layout.leafPre2, layout.acc2, layout.root2);

  const digestAcc = kind === OpKind.Update ? layout.acc2 : layout.acc;
  const a: NodeId[] = [];
  const v: NodeId[] = [];
  for (let i = 0; i < 8; i++) {
    b.scope(Family.ValueDigest, i);
    a.push(b.input(digestAcc + i));
    v.push(b.input(layout.valueDigest + i));
  }
  for (let i = 0; i < 8; i++) {
    b.scope(Family.ValueDigest, i);
    outputs.push(b.sub(a[i]!, v[i]!));
  }
  for (let l = 0; l < d; l++) {
    b.scope(Family.Booleanity, l);
    const s = b.input(layout.keyBits + l);
    outputs.push(b.sub(b.mul(s, s), s));
  }
  if (kind === OpKind.NonMembership) {
    b.scope(Family.TagResidual, 0);
    const t = b.input(layout.leafPre);
    const q = b.mul(t, t);
    const u = b.affine([[t, 2]], 0);
    outputs.push(b.sub(q, u));
  }
  b.clearScope();
  const built = b.build(outputs, layout.total);
  return { kind, config: cfg, circuit: built.circuit, tags: built.tags, layout, outputCount: built.outputCount };
}
