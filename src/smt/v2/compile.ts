/**
 * Profile v2 compiler of the three SMT kinds (docs/profile-v2.md §5): shallow circuits in which
 * every permutation — each leaf-sponge block and each path compression — is checked in parallel
 * against the input state and output the witness supplies, so the depth is 31 layers at every
 * depth and leaf bound (compat-v1: 2 + 29·Lw/8, 118 for B = 31).
 *
 * Layer 30 (reads the input): permutation input states (sponge blocks copied from the pre-image
 * and capacity slots; node compressions through the multiplexer left = acc + s·(sib − acc),
 * right = sib + s·(acc − sib)), the expected outputs copied to the carry region, and the level-1
 * checks (key-bit booleanity s² − s, value digest acc_0 − v, NonMembership tag t² − 2t).
 * Layers 29..1: the 29 Poseidon2 layers of every permutation (one structured group per layer),
 * the carry (identity groups of 8 lanes) and the checks (identity copies).
 * Layer 0: residuals out − expected per permutation, and the checks. All outputs are 0 exactly
 * on an honest input vector.
 */
import { P } from "../../field/koalabear.js";
import { type Gate, GateKind, makeLayer } from "../../gkr/circuit.js";
import { type LinearBlockGroup, type StructuredCircuit, type StructuredLayer, structuredLayer } from "../../gkr/structured/linear.js";
import { identityMap } from "../../gkr/structured/maps.js";
import { type SyncConfig, syncConfig } from "../config.js";
import { OpKind } from "../../statement/types.js";
import { CompileError } from "../errors.js";
import { type V2Layout, checksCapacity, v2Layout } from "./layout.js";
import { PERMUTATION_LAYERS, permutationRoundGroup } from "./poseidon2-layers.js";

/** A compiled profile v2 circuit. */
export interface V2CompiledCircuit {
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly circuit: StructuredCircuit;
  readonly layout: V2Layout;
}

const NEG1 = P - 1;

function lin(out: number, in1: number, coeff = 1): Gate {
  return { kind: GateKind.Lin, out, in1, in2: in1, coeff };
}

function mulGate(out: number, a: number, b: number, coeff = 1): Gate {
  return { kind: GateKind.Mul, out, in1: a, in2: b, coeff };
}

/**
 * compile_v2(kind, config).
 * @param kind operation kind tag 0/1/2.
 * @param config depth 1..64, leaf bound 10..65535, strategy A (defaults 24, 31, A).
 * @throws CompileError `BAD_KIND`, `UNSUPPORTED_CONFIG`.
 */
export function compileV2(kind: OpKind, config: Partial<SyncConfig> = {}): V2CompiledCircuit {
  if (kind !== OpKind.Membership && kind !== OpKind.NonMembership && kind !== OpKind.Update) {
    throw new CompileError("BAD_KIND", `operation kind tag must be 0 (membership), 1 (non-membership) or 2 (update), got ${String(kind)}`);
  }
  const cfg = syncConfig(config);
  const L = v2Layout(kind, cfg.depth, cfg.leafMaxFields);
  const Pn = L.permutations;
  const d = L.depth, nb = L.spongeBlocks;
  const blockBases = Uint32Array.from({ length: Pn }, (_, p) => 16 * p);
  const carryBases = Uint32Array.from({ length: Pn }, (_, p) => L.carry + 8 * p);
  const carryGroup = (inBase: Uint32Array): LinearBlockGroup => ({ map: identityMap(3), cubeMask: 0, constants: new Uint32Array(8), outBase: carryBases, inBase });
  const checkCopies = (outBase: number): Gate[] => Array.from({ length: L.checks }, (_, k) => lin(outBase + k, L.check + k));

  const layers: StructuredLayer[] = [];
  // Layer 0: residuals and checks.
  const out: Gate[] = [];
  for (let p = 0; p < Pn; p++) {
    const off = checksCapacity(L, p % L.perPath) ? 8 : 0;
    for (let i = 0; i < 8; i++) {
      out.push(lin(8 * p + i, 16 * p + off + i));
      out.push(lin(8 * p + i, L.carry + 8 * p + i, NEG1));
    }
  }
  out.push(...checkCopies(8 * Pn));
  layers.push(structuredLayer(makeLayer(L.outputBits, out), []));
  // Layers 1..29: permutation rounds 28..0.
  const copies = checkCopies(L.check);
  for (let r = PERMUTATION_LAYERS - 1; r >= 0; r--) {
    layers.push(structuredLayer(makeLayer(L.innerBits, copies), [permutationRoundGroup(r, blockBases, blockBases), carryGroup(carryBases)]));
  }
  // Layer 30: states, carry, checks (reads the input vector).
  const g: Gate[] = [];
  for (let t = 0; t < L.paths; t++) {
    for (let c = 0; c < nb; c++) {
      const p = t * L.perPath + c;
      for (let i = 0; i < 8; i++) g.push(lin(16 * p + i, L.pre + 8 * (t * nb + c) + i));
      if (c > 0) for (let i = 0; i < 8; i++) g.push(lin(16 * p + 8 + i, L.exp + 8 * (p - 1) + i));
    }
    for (let l = 0; l < d; l++) {
      const p = t * L.perPath + nb + l;
      const acc = L.exp + 8 * (p - 1);
      const sib = L.sib + 8 * l;
      const s = L.keyBits + l;
      for (let i = 0; i < 8; i++) {
        g.push(lin(16 * p + i, acc + i), mulGate(16 * p + i, s, sib + i), mulGate(16 * p + i, s, acc + i, NEG1));
        g.push(lin(16 * p + 8 + i, sib + i), mulGate(16 * p + 8 + i, s, acc + i), mulGate(16 * p + 8 + i, s, sib + i, NEG1));
      }
    }
  }
  for (let l = 0; l < d; l++) g.push(mulGate(L.check + l, L.keyBits + l, L.keyBits + l), lin(L.check + l, L.keyBits + l, NEG1));
  const valuePathAcc0 = L.exp + 8 * ((L.paths - 1) * L.perPath + nb - 1);
  for (let i = 0; i < 8; i++) g.push(lin(L.check + d + i, valuePathAcc0 + i), lin(L.check + d + i, L.value + i, NEG1));
  if (kind === OpKind.NonMembership) g.push(mulGate(L.check + d + 8, L.pre, L.pre), lin(L.check + d + 8, L.pre, P - 2));
  const expBases = Uint32Array.from({ length: Pn }, (_, p) => L.exp + 8 * p);
  layers.push(structuredLayer(makeLayer(L.innerBits, g), [carryGroup(expBases)]));
  return { kind, config: cfg, circuit: { inputWidthBits: L.inputBits, layers }, layout: L };
}
