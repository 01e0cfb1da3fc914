/**
 * The layers every shallow SMT circuit shares below its input layer (docs/profile-v2.md §5.2,
 * docs/profile-v3.md §4): the 29 Poseidon2 layers of every permutation (one structured group per
 * layer over all P blocks), the carried expected values (identity groups of 8 lanes) and the
 * lifted level-1 checks (identity copies), then the output layer of residuals out − expected per
 * permutation followed by the checks. Only the input layer (layer 30) differs between profiles.
 */
import { P } from "../../field/koalabear.js";
import { type Gate, GateKind, makeLayer, widthBits } from "../../gkr/circuit.js";
import { type LinearBlockGroup, type StructuredLayer, structuredLayer } from "../../gkr/structured/linear.js";
import { identityMap } from "../../gkr/structured/maps.js";
import { PERMUTATION_LAYERS, permutationRoundGroup } from "./poseidon2-layers.js";

/** What the shared layers need of a layout. */
export interface CheckedPermutationShape {
  /** Permutations per path and in all. */
  readonly perPath: number;
  readonly permutations: number;
  /** Leaf-sponge blocks per path (permutation j < nb − 1 of a path has its lanes 8..15 checked). */
  readonly spongeBlocks: number;
  /** Inner layers: first lane of the carried expected values and of the lifted checks; the check count. */
  readonly carry: number;
  readonly check: number;
  readonly checks: number;
  readonly innerBits: number;
  readonly outputBits: number;
  readonly paths: number;
  readonly depth: number;
}

/** Where the input layer finds a path's values: the first lane of each input region. */
export interface PathInputs {
  /** Leaf pre-image block 0 of path t (blocks follow at 8-lane steps). */
  readonly pre: (t: number) => number;
  /** EXP slot 0 (slot p is the value permutation p must produce). */
  readonly exp: number;
  /** Sibling 0 (siblings follow at 8-lane steps, shared by the paths). */
  readonly sib: number;
  /** Key bit 0 (one lane per level). */
  readonly keyBits: number;
}

/**
 * The input layer's permutation input states (docs/profile-v2.md §5.2, layer 30): sponge block c
 * of path t takes lanes 0..7 from the pre-image and lanes 8..15 from EXP slot p − 1 (c ≥ 1); node
 * level l takes left = acc + s·(sib − acc), right = sib + s·(acc − sib) with s = key bit l and
 * acc = EXP slot p − 1. Appends the gates to `g`.
 */
export function pathStateGates(g: Gate[], L: CheckedPermutationShape, at: PathInputs): void {
  const nb = L.spongeBlocks,
    d = L.depth;
  for (let t = 0; t < L.paths; t++) {
    for (let c = 0; c < nb; c++) {
      const p = t * L.perPath + c;
      for (let i = 0; i < 8; i++) g.push(lin(16 * p + i, at.pre(t) + 8 * c + i));
      if (c > 0) for (let i = 0; i < 8; i++) g.push(lin(16 * p + 8 + i, at.exp + 8 * (p - 1) + i));
    }
    for (let l = 0; l < d; l++) {
      const p = t * L.perPath + nb + l;
      const acc = at.exp + 8 * (p - 1);
      const sib = at.sib + 8 * l;
      const s = at.keyBits + l;
      for (let i = 0; i < 8; i++) {
        g.push(lin(16 * p + i, acc + i), mulGate(16 * p + i, s, sib + i), mulGate(16 * p + i, s, acc + i, NEG1));
        g.push(
          lin(16 * p + 8 + i, sib + i),
          mulGate(16 * p + 8 + i, s, acc + i),
          mulGate(16 * p + 8 + i, s, sib + i, NEG1),
        );
      }
    }
  }
}

/**
 * The regions of the layers above the input (docs/profile-v2.md §5.2) for P permutations and a
 * number of level-1 checks: CARRY = 2^⌈log2 16P⌉, CHECK = CARRY + 8·2^⌈log2 P⌉, the inner width
 * bits, the output count 8P + checks and its width bits; 31 layers.
 */
export function checkedRegions(
  permutations: number,
  checks: number,
): Pick<CheckedPermutationShape, "carry" | "check" | "checks" | "innerBits" | "outputBits"> & {
  readonly outputCount: number;
  readonly layers: number;
} {
  const carry = 2 ** widthBits(16 * permutations);
  const check = carry + 8 * 2 ** widthBits(permutations);
  const outputCount = 8 * permutations + checks;
  return {
    carry,
    check,
    checks,
    innerBits: widthBits(check + checks),
    outputCount,
    outputBits: widthBits(outputCount),
    layers: 31,
  };
}

/** P − 1, the coefficient of a subtraction. */
export const NEG1 = P - 1;

/** A Lin gate out += coeff·in1. */
export function lin(out: number, in1: number, coeff = 1): Gate {
  return { kind: GateKind.Lin, out, in1, in2: in1, coeff };
}

/** A Mul gate out += coeff·a·b. */
export function mulGate(out: number, a: number, b: number, coeff = 1): Gate {
  return { kind: GateKind.Mul, out, in1: a, in2: b, coeff };
}

/** The carry: an identity group of 8 lanes from `inBase` to the carry region of every permutation. */
export function carryGroup(L: CheckedPermutationShape, inBase: Uint32Array): LinearBlockGroup {
  const outBase = Uint32Array.from({ length: L.permutations }, (_, p) => L.carry + 8 * p);
  return { map: identityMap(3), cubeMask: 0, constants: new Uint32Array(8), outBase, inBase };
}

/** Layers 0 … 29 (output first): the residual layer, then permutation rounds 28 … 0. */
export function checkedPermutationLayers(L: CheckedPermutationShape): StructuredLayer[] {
  const Pn = L.permutations;
  const blockBases = Uint32Array.from({ length: Pn }, (_, p) => 16 * p);
  const carryBases = Uint32Array.from({ length: Pn }, (_, p) => L.carry + 8 * p);
  const checkCopies = (outBase: number): Gate[] =>
    Array.from({ length: L.checks }, (_, k) => lin(outBase + k, L.check + k));
  const layers: StructuredLayer[] = [];
  const out: Gate[] = [];
  for (let p = 0; p < Pn; p++) {
    const off = p % L.perPath < L.spongeBlocks - 1 ? 8 : 0;
    for (let i = 0; i < 8; i++) {
      out.push(lin(8 * p + i, 16 * p + off + i));
      out.push(lin(8 * p + i, L.carry + 8 * p + i, NEG1));
    }
  }
  out.push(...checkCopies(8 * Pn));
  layers.push(structuredLayer(makeLayer(L.outputBits, out), []));
  const copies = checkCopies(L.check);
  for (let r = PERMUTATION_LAYERS - 1; r >= 0; r--) {
    layers.push(
      structuredLayer(makeLayer(L.innerBits, copies), [
        permutationRoundGroup(r, blockBases, blockBases),
        carryGroup(L, carryBases),
      ]),
    );
  }
  return layers;
}
