/**
 * Profile v3 compiler of the three SMT kinds (docs/profile-v3.md §4): the v2 circuit's 30 lower
 * layers (every permutation checked in parallel, `checkedPermutationLayers`) under an input layer
 * that reads the split input vector of `v3Layout`:
 *
 * - the permutation input states as v2 (`pathStateGates`), with the key bits and the public
 *   pre-images read from the public half;
 * - the carry of the EXP slots (identity groups, the same progression as v2);
 * - the level-1 checks: root copies (EXP root slot − public root, 8 per path); non-membership:
 *   t² − 2t for the leaf tag t; update: the old-leaf rule —
 *   o_tag·pre_old[0] − tag_value, o_record·pre_old[0] − o_record, sel_j² − sel_j,
 *   Σ sel_j − o_record, Σ (10 + j)·sel_j − o_record·pre_old[1], and for each identity limb i
 *   Σ_j sel_j·pre_old[(10 + j) − 8 + i] − identity_i.
 * All outputs are 0 exactly on an honest input vector whose public half is the statement's.
 */
import { P } from "../../field/koalabear.js";
import { type Gate, makeLayer } from "../../gkr/circuit.js";
import { type StructuredCircuit, structuredLayer } from "../../gkr/structured/linear.js";
import { OpKind } from "../../statement/types.js";
import { type SyncConfig, syncConfig } from "../config.js";
import { CompileError } from "../errors.js";
import { IDENTITY_LIMBS } from "../leaf.js";
import {
  NEG1,
  carryGroup,
  checkedPermutationLayers,
  lin,
  mulGate,
  pathStateGates,
} from "../v2/checked-permutations.js";
import {
  MIN_OCCUPIED_LENGTH,
  RULE_IDENTITY,
  RULE_RECORD_FLAG,
  RULE_TAG_FLAG,
  RULE_TAG_VALUE,
  type V3Layout,
  rootSlot,
  v3Layout,
} from "./layout.js";

/** A compiled profile v3 circuit. */
export interface V3CompiledCircuit {
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly circuit: StructuredCircuit;
  readonly layout: V3Layout;
}

/** Largest leaf bound of profile v3 (the update's selector has B − 9 lanes). */
export const V3_MAX_LEAF_MAX_FIELDS = 255;

function updateRuleGates(g: Gate[], L: V3Layout, first: number): void {
  const old = L.preOf[0]!;
  const r = L.rule;
  let k = first;
  g.push(mulGate(k, r + RULE_TAG_FLAG, old), lin(k, r + RULE_TAG_VALUE, NEG1));
  k++;
  g.push(mulGate(k, r + RULE_RECORD_FLAG, old), lin(k, r + RULE_RECORD_FLAG, NEG1));
  k++;
  for (let j = 0; j < L.selCount; j++, k++) g.push(mulGate(k, L.sel + j, L.sel + j), lin(k, L.sel + j, NEG1));
  for (let j = 0; j < L.selCount; j++) g.push(lin(k, L.sel + j));
  g.push(lin(k, r + RULE_RECORD_FLAG, NEG1));
  k++;
  for (let j = 0; j < L.selCount; j++) g.push(lin(k, L.sel + j, MIN_OCCUPIED_LENGTH + j));
  g.push(mulGate(k, r + RULE_RECORD_FLAG, old + 1, NEG1));
  k++;
  for (let i = 0; i < IDENTITY_LIMBS; i++, k++) {
    for (let j = 0; j < L.selCount; j++) g.push(mulGate(k, L.sel + j, old + (MIN_OCCUPIED_LENGTH + j) - 8 + i));
    g.push(lin(k, r + RULE_IDENTITY + i, NEG1));
  }
}

/**
 * compile_v3(kind, config).
 * @param kind operation kind.
 * @param config depth 1..64, leaf bound 10..255 (defaults 24, 31).
 * @throws CompileError `BAD_KIND`, `UNSUPPORTED_CONFIG`.
 */
export function compileV3(kind: OpKind, config: Partial<SyncConfig> = {}): V3CompiledCircuit {
  if (kind !== OpKind.Membership && kind !== OpKind.NonMembership && kind !== OpKind.Update) {
    throw new CompileError(
      "BAD_KIND",
      `operation kind must be membership, nonmembership or update, got ${String(kind)}`,
    );
  }
  const cfg = syncConfig(config);
  if (cfg.leafMaxFields > V3_MAX_LEAF_MAX_FIELDS) {
    throw new CompileError(
      "UNSUPPORTED_CONFIG",
      `profile v3 supports leaf bounds up to ${V3_MAX_LEAF_MAX_FIELDS}, got ${cfg.leafMaxFields}`,
    );
  }
  const L = v3Layout(kind, cfg.depth, cfg.leafMaxFields);
  const layers = checkedPermutationLayers(L);
  const g: Gate[] = [];
  pathStateGates(g, L, { pre: (t) => L.preOf[t]!, exp: L.exp, sib: L.sib, keyBits: L.keyBits });
  for (let t = 0; t < L.paths; t++) {
    const slot = rootSlot(L, t);
    for (let i = 0; i < 8; i++)
      g.push(lin(L.check + 8 * t + i, slot + i), lin(L.check + 8 * t + i, L.roots + 8 * t + i, NEG1));
  }
  if (kind === OpKind.NonMembership)
    g.push(mulGate(L.check + 8, L.preOf[0]!, L.preOf[0]!), lin(L.check + 8, L.preOf[0]!, P - 2));
  if (kind === OpKind.Update) updateRuleGates(g, L, L.check + 8 * L.paths);
  const expBases = Uint32Array.from({ length: L.permutations }, (_, p) => L.exp + 8 * p);
  layers.push(structuredLayer(makeLayer(L.innerBits, g), [carryGroup(L, expBases)]));
  return { kind, config: cfg, circuit: { inputWidthBits: L.inputBits, layers }, layout: L };
}
