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
import { type Gate, makeLayer } from "../../gkr/circuit.js";
import { type StructuredCircuit, type StructuredLayer, structuredLayer } from "../../gkr/structured/linear.js";
import { type SyncConfig, syncConfig } from "../config.js";
import { OpKind } from "../../statement/types.js";
import { CompileError } from "../errors.js";
import { NEG1, carryGroup, checkedPermutationLayers, lin, mulGate, pathStateGates } from "./checked-permutations.js";
import { type V2Layout, v2Layout } from "./layout.js";

/** A compiled profile v2 circuit. */
export interface V2CompiledCircuit {
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly circuit: StructuredCircuit;
  readonly layout: V2Layout;
}

/**
 * compile_v2(kind, config).
 * @param kind operation kind tag 0/1/2.
 * @param config depth 1..64, leaf bound 10..65535, strategy A (defaults 24, 31, A).
 * @throws CompileError `BAD_KIND`, `UNSUPPORTED_CONFIG`.
 */
export function compileV2(kind: OpKind, config: Partial<SyncConfig> = {}): V2CompiledCircuit {
  if (kind !== OpKind.Membership && kind !== OpKind.NonMembership && kind !== OpKind.Update) {
    throw new CompileError(
      "BAD_KIND",
      `operation kind tag must be 0 (membership), 1 (non-membership) or 2 (update), got ${String(kind)}`,
    );
  }
  const cfg = syncConfig(config);
  const L = v2Layout(kind, cfg.depth, cfg.leafMaxFields);
  const Pn = L.permutations;
  const d = L.depth,
    nb = L.spongeBlocks;
  const layers: StructuredLayer[] = checkedPermutationLayers(L);
  // Layer 30: states, carry, checks (reads the input vector).
  const g: Gate[] = [];
  pathStateGates(g, L, { pre: (t) => L.pre + 8 * t * nb, exp: L.exp, sib: L.sib, keyBits: L.keyBits });
  for (let l = 0; l < d; l++)
    g.push(mulGate(L.check + l, L.keyBits + l, L.keyBits + l), lin(L.check + l, L.keyBits + l, NEG1));
  const valuePathAcc0 = L.exp + 8 * ((L.paths - 1) * L.perPath + nb - 1);
  for (let i = 0; i < 8; i++) g.push(lin(L.check + d + i, valuePathAcc0 + i), lin(L.check + d + i, L.value + i, NEG1));
  if (kind === OpKind.NonMembership) g.push(mulGate(L.check + d + 8, L.pre, L.pre), lin(L.check + d + 8, L.pre, P - 2));
  const expBases = Uint32Array.from({ length: Pn }, (_, p) => L.exp + 8 * p);
  layers.push(structuredLayer(makeLayer(L.innerBits, g), [carryGroup(L, expBases)]));
  return { kind, config: cfg, circuit: { inputWidthBits: L.inputBits, layers }, layout: L };
}
