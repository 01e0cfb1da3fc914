/**
 * The statement part of the Fiat–Shamir schedule of one proof (compat-v1 §11 steps 1–5),
 * shared by prover and verifier. Step 6 (the GKR schedule) is `proveGkr` / `verifyGkr`.
 */
import type { Circuit } from "../gkr/circuit.js";
import { constCount, gateCount } from "../gkr/circuit.js";
import { fromU32 } from "../field/koalabear.js";
import { DuplexChallenger } from "../transcript/challenger.js";
import { PROOF_DOMAIN_TAG } from "../transcript/domains.js";
import type { Digest } from "../hash/digest.js";
import { type OpKind, opKindTag, type PublicInputs } from "../statement/types.js";

/**
 * Returns a fresh proof transcript new("statesync-gkr/v0.1") that has absorbed, in order:
 * kind tag, depth, input_width_bits, layer count; per layer width_bits, gate count, const count;
 * the circuit commitment; old_root, new_root, op_kind_tag, asset_id mod 2^32 and asset_id >> 32
 * (each reduced mod p), value_digest; and the claimed output vector (2^{s_out(0)} elements).
 * `kind` is an `OpKind` or its §6.4 tag.
 */
export function statementTranscript(
  circuit: Circuit,
  kind: OpKind | number,
  depth: number,
  commitment: Digest,
  publicInputs: PublicInputs,
  claimedOutputs: ArrayLike<number>,
): DuplexChallenger {
  const t = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG);
  t.observe(typeof kind === "string" ? opKindTag(kind) : kind);
  t.observe(fromU32(depth));
  t.observe(circuit.inputWidthBits);
  t.observe(circuit.layers.length);
  for (const layer of circuit.layers) {
    t.observe(layer.widthBits);
    t.observe(gateCount(layer));
    t.observe(constCount(layer));
  }
  t.observeDigest(commitment);
  t.observeDigest(publicInputs.oldRoot);
  t.observeDigest(publicInputs.newRoot);
  t.observe(publicInputs.opKindTag);
  const id = BigInt.asUintN(64, publicInputs.assetId);
  t.observe(fromU32(Number(id & 0xffffffffn)));
  t.observe(fromU32(Number(id >> 32n)));
  t.observeDigest(publicInputs.valueDigest);
  for (let i = 0; i < claimedOutputs.length; i++) t.observeUnchecked(claimedOutputs[i]!);
  return t;
}
