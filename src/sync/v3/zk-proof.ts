/**
 * Profile v3's zero-knowledge mode v3-zk (docs/profile-v3.md §11): the statements of a v3 proof,
 * proved so that everything but the statements can be simulated. The unread lanes of every
 * committed half are random; the vector f (zk-layout.ts: the committed halves, then every layer's
 * masks) is committed with the hiding commitment of docs/pcs.md §12 before the first challenge;
 * the layers are the zero-knowledge sumchecks of src/gkr/zk; the masked opening proves the two
 * input claims and one claim per layer on its masks. τ lies in f's top values when they leave room
 * (the layout "top-block", docs/pcs.md §12.10), else in a new variable; the verifier takes either.
 *
 * Transcript (§11.1, §11.5): new(`statesync-gkr/v3zk`); §5.2 steps 1–3 as v3; the hiding
 * commitment (pcs §12.4); the layers (§11.4); the masked opening (pcs §12.4).
 */
import type { Digest } from "../../hash/digest.js";
import { inputBitsOf } from "../../gkr/circuit.js";
import { evaluateStructuredCopies, residentCopies } from "../../gkr/structured/dp-prover.js";
import { drawLayerMasks } from "../../gkr/zk/masks.js";
import { proveZkCopiesGkr } from "../../gkr/zk/prover.js";
import { verifyZkGkr } from "../../gkr/zk/verifier.js";
import {
  decodeWhirHidingCommitment,
  decodeWhirHidingProof,
  encodeWhirHidingCommitment,
  encodeWhirHidingProof,
} from "../../pcs/hiding-codec.js";
import { hidingExtraVariables } from "../../pcs/hiding-params.js";
import { releaseWhirHidingState, whirCommitHidingOn, whirOpenHidingOn } from "../../pcs/hiding-prover.js";
import { whirReadHidingCommitmentOn, whirVerifyHidingOn } from "../../pcs/hiding-verifier.js";
import { DEFAULT_HIDING_WHIR_SET, maxVariables, whirParameterSet } from "../../pcs/params.js";
import { cryptoRandomSource } from "../../pcs/random.js";
import type { OpRequest } from "../../smt/operation.js";
import { committedHalves } from "../../smt/v3/input.js";
import type { V3Statement } from "../../smt/v3/statement.js";
import { SyncError } from "../../statement/errors.js";
import { encodeV3ZkMessage, type V3ZkMessage } from "../../codec/v3/message.js";
import { V3ZK_PROOF_DOMAIN_TAG } from "./domains.js";
import { committedClaims, publicEvals } from "./input-claims.js";
import type { PreparedV3 } from "./prepared.js";
import {
  buildV3Witness,
  publicTableOf,
  reportTimings,
  statementChecksOf,
  statementTranscript,
  type V3ProveOptions,
  type V3VerifyOptions,
  v3Identity,
} from "./message-steps.js";
import type { V3Verdict } from "./verdict.js";
import { verifyV3Flow, type V3VerifyMode } from "./verify-flow.js";
import type { ZkGkrProof, ZkMaskClaim } from "../../gkr/zk/proof.js";
import type { WhirHidingCommitment, WhirHidingProof } from "../../pcs/types.js";
import {
  v3ZkClaims,
  v3ZkHidingLayout,
  v3ZkVector,
  v3ZkVectorLayout,
  type V3ZkVectorLayout,
  padCommittedHalves,
} from "./zk-layout.js";

function vectorLayout(prepared: PreparedV3, k: number): V3ZkVectorLayout {
  const circuit = prepared.compiled.circuit;
  return v3ZkVectorLayout(
    prepared.compiled.layout,
    circuit.layers.map((_, i) => inputBitsOf(circuit, i)),
    k,
  );
}

/**
 * The most copy bits k (K = 2^k operations, k ≤ 12) whose v3-zk vector — the committed halves
 * with the layers' masks — the set hides in its default layout (the prover's own check), or −1.
 * @throws PcsError `PCS_UNKNOWN_SET`.
 */
export function v3ZkMaxCopyBits(prepared: PreparedV3, set: string = DEFAULT_HIDING_WHIR_SET): number {
  const parameters = whirParameterSet(set);
  for (let k = 12; k >= 0; k--) {
    const z = vectorLayout(prepared, k);
    if (z.vectorBits <= maxVariables(parameters) - hidingExtraVariables(v3ZkHidingLayout(z, parameters))) return k;
  }
  return -1;
}

/**
 * Proves the statements of `requests` in one inner-proof-v3zk message (aggregates and blocks).
 * @throws SyncError `ZK_UNSUPPORTED` (no room for the random lanes, or f too large for the set's
 *   hiding commitment), and what the v3 prover throws.
 */
export function proveZkMessage(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  proofKind: 1 | 2,
  roots: readonly Digest[],
  options: V3ProveOptions,
): Uint8Array {
  const t0 = performance.now();
  const layout = prepared.compiled.layout;
  const circuit = prepared.compiled.circuit;
  const set = options.pcsSet ?? DEFAULT_HIDING_WHIR_SET;
  const { n, k, input, halves, digests } = buildV3Witness(prepared, requests, options);
  const z = vectorLayout(prepared, k);
  const parameters = whirParameterSet(set);
  const fitting = v3ZkHidingLayout(z, parameters);
  const hidingLayout = options.hidingLayout ?? fitting;
  const limit = maxVariables(parameters) - hidingExtraVariables(hidingLayout);
  if (z.vectorBits > limit)
    throw new SyncError(
      "ZK_UNSUPPORTED",
      `${n} operations need a committed vector of 2^${z.vectorBits} values with their masks; set ${set} hides at most 2^${limit} in the ${hidingLayout} layout (a set of rate 1/2 takes one more variable)`,
    );
  if (hidingLayout !== "extra-variable" && hidingLayout !== fitting)
    throw new SyncError(
      "ZK_UNSUPPORTED",
      `the hiding layout ${String(hidingLayout)} does not fit ${n} operations' vector with set ${set}: τ's block would overlap the masks`,
    );
  const random = options.random ?? cryptoRandomSource;
  padCommittedHalves(z, input, random);
  const masks = circuit.layers.map((_, i) => drawLayerMasks(inputBitsOf(circuit, i) + k, i > 0, random));
  const t1 = performance.now();
  const transcript = statementTranscript(prepared, proofKind, n, k, digests, V3ZK_PROOF_DOMAIN_TAG);
  const state = whirCommitHidingOn(transcript, v3ZkVector(z, committedHalves(layout, input), masks), {
    set,
    random,
    layout: hidingLayout,
  });
  const t2 = performance.now();
  const keep = residentCopies();
  let gkr, t3: number;
  try {
    const values = evaluateStructuredCopies(circuit, k, input, keep);
    t3 = performance.now();
    gkr = proveZkCopiesGkr(circuit, k, values, transcript, masks);
  } finally {
    keep?.recycle();
  }
  const t4 = performance.now();
  const claim = gkr.claims.input;
  const [pubX, pubY] = publicEvals(layout, publicTableOf(prepared, halves, k), [claim.x, claim.y]);
  const split = committedClaims(k, claim, pubX!, pubY!);
  const claims = v3ZkClaims(z, "claims" in split ? split.claims : [], gkr.claims.masks);
  let opening: Uint8Array;
  try {
    opening = encodeWhirHidingProof(whirOpenHidingOn(transcript, state, claims));
  } finally {
    // its tables go back to the thread's recycled arrays for the next proof
    releaseWhirHidingState(state);
  }
  const t5 = performance.now();
  const bytes = encodeV3ZkMessage({
    identity: v3Identity(prepared),
    proofKind,
    statementChecks: statementChecksOf(digests, n),
    roots,
    commitment: encodeWhirHidingCommitment(state.commitment),
    proof: gkr.proof,
    opening,
  });
  reportTimings(options, n, k, [t0, t1, t2, t3, t4, t5]);
  return bytes;
}

/** How v3-zk commits, proves its layers and opens (the hiding commitment; `verifyV3Flow`). */
const V3ZK_MODE: V3VerifyMode<
  ZkGkrProof,
  WhirHidingCommitment,
  WhirHidingProof,
  ReturnType<typeof whirReadHidingCommitmentOn>,
  readonly ZkMaskClaim[]
> = {
  decodeCommitment: decodeWhirHidingCommitment,
  commitmentProblem: (commitment, { prepared, k }) => {
    const z = vectorLayout(prepared, k);
    return commitment.numVariables !== z.vectorBits
      ? `the commitment is to ${commitment.numVariables} variables; the committed halves and masks have ${z.vectorBits}`
      : null;
  },
  decodeOpening: decodeWhirHidingProof,
  domain: V3ZK_PROOF_DOMAIN_TAG,
  read: whirReadHidingCommitmentOn,
  gkr: (shape, wiring, proof, transcript) => {
    const r = verifyZkGkr(shape, wiring, proof, transcript);
    return r.ok ? { ok: true, input: r.claims.input, more: r.claims.masks } : r;
  },
  open: (transcript, read, claims, masks, { prepared, k }, opening) =>
    whirVerifyHidingOn(transcript, read, v3ZkClaims(vectorLayout(prepared, k), claims, masks), opening),
  openingName: "the masked opening",
};

/** Verifies a decoded inner-proof-v3zk message against the statements (the checks of `verifyV3Message`, in its order). */
export function verifyV3ZkMessage(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  m: V3ZkMessage,
  options: V3VerifyOptions,
): V3Verdict {
  return verifyV3Flow(prepared, statements, m, options, V3ZK_MODE);
}
