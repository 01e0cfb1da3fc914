/**
 * A v3-zk prover that a test can make dishonest (docs/profile-v3.md §11): it runs the library's
 * steps (the statement transcript under the v3-zk tag, the random lanes, the masks, the hiding
 * commitment, the zero-knowledge layers, the masked opening) on the forger's choices and encodes
 * the message. With no choice made and the same seed it is the library's prover, byte for byte.
 */
import { inputBitsOf } from "../../src/gkr/circuit.js";
import { evaluateStructuredCopies } from "../../src/gkr/structured/dp-prover.js";
import { drawLayerMasks, type ZkLayerMasks } from "../../src/gkr/zk/masks.js";
import { proveZkCopiesGkr } from "../../src/gkr/zk/prover.js";
import { encodeWhirHidingCommitment, encodeWhirHidingProof } from "../../src/pcs/hiding-codec.js";
import { type WhirHidingAdversary, whirCommitHidingOn, whirOpenHidingOn } from "../../src/pcs/hiding-prover.js";
import { DEFAULT_HIDING_WHIR_SET, whirParameterSet, type WhirSetId } from "../../src/pcs/params.js";
import { whirSeededRandomSource } from "../../src/pcs/random.js";
import type { WhirAnyClaim, WhirHidingLayout } from "../../src/pcs/types.js";
import { committedHalves } from "../../src/smt/v3/input.js";
import { publicHalf, statementDigests, type V3Statement } from "../../src/smt/v3/statement.js";
import { encodeV3ZkMessage } from "../../src/codec/v3/message.js";
import type { Digest } from "../../src/hash/digest.js";
import { V3ZK_PROOF_DOMAIN_TAG } from "../../src/sync/v3/domains.js";
import { committedClaims, publicEvals, publicTable } from "../../src/sync/v3/input-claims.js";
import { statementChecksOf, statementTranscript, v3Identity } from "../../src/sync/v3/message-steps.js";
import type { PreparedV3 } from "../../src/sync/v3/prepared.js";
import {
  padCommittedHalves,
  v3ZkClaims,
  v3ZkHidingLayout,
  v3ZkVector,
  v3ZkVectorLayout,
} from "../../src/sync/v3/zk-layout.js";
import { copyBitsOf, paddedStatements } from "./forge-v3.js";

/** What the forger chooses; everything else it does honestly. */
export interface ForgeV3Zk {
  readonly prepared: PreparedV3;
  readonly proofKind: 1 | 2;
  /** The statements the verifier will hold (digests in the transcript, checks in the message, public halves in the claim split). */
  readonly statements: readonly V3Statement[];
  /** The K copies' input vector (random lanes are filled in, as the prover does). */
  readonly input: Uint32Array;
  /** The seed of the prover's randomness (`whirSeededRandomSource`). */
  readonly seed: string;
  readonly roots?: readonly Digest[];
  readonly set?: WhirSetId;
  /** The hiding commitment's layout (default the prover's, `v3ZkHidingLayout`). */
  readonly hidingLayout?: WhirHidingLayout;
  /** Changes the committed vector f (C, then the masks' blocks) before it is committed. */
  readonly vector?: (f: Uint32Array) => void;
  /** The masks the layers use (default those committed). */
  readonly gkrMasks?: (committed: readonly ZkLayerMasks[]) => ZkLayerMasks[];
  /** Replaces the claims the opening proves (default those the verifier derives). */
  readonly claims?: (derived: WhirAnyClaim[]) => WhirAnyClaim[];
  readonly adversary?: WhirHidingAdversary;
}

/** Runs the v3-zk prover's steps on the forger's choices and encodes the message. */
export function forgeV3Zk(f: ForgeV3Zk): Uint8Array {
  const { prepared, statements } = f;
  const layout = prepared.compiled.layout;
  const circuit = prepared.compiled.circuit;
  const n = statements.length;
  const k = copyBitsOf(n);
  const random = whirSeededRandomSource(f.seed);
  const input = f.input.slice();
  const inputBits = circuit.layers.map((_, i) => inputBitsOf(circuit, i));
  const z = v3ZkVectorLayout(layout, inputBits, k);
  padCommittedHalves(z, input, random);
  const masks = inputBits.map((s, i) => drawLayerMasks(s + k, i > 0, random));
  const halves = statements.map((s) => publicHalf(layout, s));
  const digests = statementDigests(
    layout,
    statements.map((s) => s.key),
    halves,
  );
  const t = statementTranscript(prepared, f.proofKind, n, k, digests, V3ZK_PROOF_DOMAIN_TAG);
  const vector = v3ZkVector(z, committedHalves(layout, input), masks);
  f.vector?.(vector);
  const set = f.set ?? DEFAULT_HIDING_WHIR_SET;
  const state = whirCommitHidingOn(t, vector, {
    set,
    random,
    layout: f.hidingLayout ?? v3ZkHidingLayout(z, whirParameterSet(set)),
  });
  const values = evaluateStructuredCopies(circuit, k, input);
  const gkr = proveZkCopiesGkr(circuit, k, values, t, f.gkrMasks ? f.gkrMasks(masks) : masks);
  const table = publicTable(
    layout,
    paddedStatements(prepared, statements).map((s) => publicHalf(layout, s)),
  );
  const claim = gkr.claims.input;
  const [ux, uy] = publicEvals(layout, table, [claim.x, claim.y]);
  const split = committedClaims(k, claim, ux!, uy!);
  const derived = v3ZkClaims(z, "claims" in split ? split.claims : [], gkr.claims.masks);
  const opening = whirOpenHidingOn(t, state, f.claims ? f.claims(derived) : derived, f.adversary);
  return encodeV3ZkMessage({
    identity: v3Identity(prepared),
    proofKind: f.proofKind,
    statementChecks: statementChecksOf(digests, n),
    roots: f.roots ?? [],
    commitment: encodeWhirHidingCommitment(state.commitment),
    proof: gkr.proof,
    opening: encodeWhirHidingProof(opening),
  });
}
