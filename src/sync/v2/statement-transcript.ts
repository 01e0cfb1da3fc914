/**
 * The statement part of a profile v2 proof transcript (docs/profile-v2.md §7 steps 1–5).
 */
import type { Digest } from "../../hash/digest.js";
import { DuplexChallenger } from "../../transcript/challenger.js";
import type { V2CompiledCircuit } from "../../smt/v2/compile.js";
import { opKindTag, type PublicInputs } from "../../statement/types.js";
import { V2_PROFILE, V2_PROOF_DOMAIN_TAG } from "./domains.js";

/** asset_id as four 16-bit limbs, least significant first (injective for every u64). */
export function assetIdLimbs(assetId: bigint): number[] {
  const id = BigInt.asUintN(64, assetId);
  return [0n, 16n, 32n, 48n].map((s) => Number((id >> s) & 0xffffn));
}

/** Absorbs one operation's public inputs (§7 step 4). */
export function observePublicInputs(t: DuplexChallenger, pub: PublicInputs): void {
  t.observeDigest(pub.oldRoot);
  t.observeDigest(pub.newRoot);
  t.observe(pub.opKindTag);
  t.observeMany(assetIdLimbs(pub.assetId));
  t.observeDigest(pub.valueDigest);
}

/** A fresh v2 proof transcript after §7 steps 1–5. */
export function v2StatementTranscript(
  compiled: V2CompiledCircuit,
  commitment: Digest,
  publicInputs: PublicInputs,
  claimedOutputs: ArrayLike<number>,
): DuplexChallenger {
  const { circuit, config, kind } = compiled;
  const t = DuplexChallenger.withDomain(V2_PROOF_DOMAIN_TAG);
  t.observeMany([
    V2_PROFILE,
    opKindTag(kind),
    config.depth,
    config.leafMaxFields,
    circuit.inputWidthBits,
    circuit.layers.length,
  ]);
  for (const layer of circuit.layers) t.observe(layer.widthBits);
  t.observeDigest(commitment);
  observePublicInputs(t, publicInputs);
  t.observeAllUnchecked(claimedOutputs);
  return t;
}
