/**
 * Circuit commitment of profile v2 (docs/profile-v2.md §8): the v1 §12 absorption of the plain
 * gates and constants (`observeLayerGates` of ../commitment.ts), plus every linear group (map id, lane bits, cube mask, constants, blocks),
 * on a transcript with the v2 commitment domain tag.
 */
import type { Digest } from "../../hash/digest.js";
import type { StructuredCircuit } from "../../gkr/structured/linear.js";
import type { SyncConfig } from "../../smt/config.js";
import { type OpKind, opKindTag } from "../../statement/types.js";
import { DuplexChallenger } from "../../transcript/challenger.js";
import type { V2CompiledCircuit } from "../../smt/v2/compile.js";
import { V2_CIRCUIT_VERSION, V2_COMMITMENT_DOMAIN_TAG } from "./domains.js";
import { observeLayerGates } from "../commitment.js";

/** The 8-element commitment of a compiled v2 circuit. Every absorbed scalar is < p (validated circuits). */
export function v2CircuitCommitment(compiled: V2CompiledCircuit): Digest {
  return structuredCircuitCommitment(V2_COMMITMENT_DOMAIN_TAG, V2_CIRCUIT_VERSION, compiled);
}

/**
 * The §8 absorption of a compiled structured SMT circuit under a profile's commitment domain tag
 * and circuit version (profile v2, and profile v3: docs/profile-v3.md §4.3).
 */
export function structuredCircuitCommitment(
  domainTag: string,
  circuitVersion: number,
  compiled: { readonly kind: OpKind; readonly config: SyncConfig; readonly circuit: StructuredCircuit },
): Digest {
  const t = DuplexChallenger.withDomain(domainTag);
  const { circuit, config, kind } = compiled;
  t.observeMany([
    circuitVersion,
    opKindTag(kind),
    config.depth,
    config.leafMaxFields,
    circuit.inputWidthBits,
    circuit.layers.length,
  ]);
  for (const layer of circuit.layers) {
    observeLayerGates(t, layer);
    t.observe(layer.linear.length);
    for (const g of layer.linear) {
      t.observe(g.map.id);
      t.observe(g.map.laneBits);
      t.observe(g.cubeMask);
      t.observeMany(g.constants);
      t.observe(g.outBase.length);
      for (let b = 0; b < g.outBase.length; b++) {
        t.observe(g.outBase[b]!);
        t.observe(g.inBase[b]!);
      }
    }
  }
  const a = t.sampleExt();
  const b = t.sampleExt();
  return Uint32Array.from([...a, ...b]);
}
