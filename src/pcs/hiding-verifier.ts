/**
 * The verifier of a masked opening (docs/pcs.md §12.6): replays §12.4's transcript, checks the
 * σ′ count and the grinding before ρ, then verifies the WHIR opening of h = ρ·f′ + g′ at the
 * claims (w_c, ρ·σ_c + σ′_c) with the core of src/pcs/verifier.ts, the first iteration's rows
 * hashed as F′'s row then G′'s row against the one root and combined into h's rows.
 */
import { extAdd, extMul, type Ext } from "../field/extension.js";
import { P } from "../field/koalabear.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { claimsProblem, extProblem } from "./checks.js";
import { hidingWidthCode, whirHidingSchedule, type WhirHidingSchedule } from "./hiding-params.js";
import { extendClaims, maskBlockProblem } from "./hiding-steps.js";
import { scaleAddBase } from "./multilinear.js";
import { whirParameterSet } from "./params.js";
import { absorbClaims, absorbExts, absorbHidingCommitment, drawOodPoints } from "./transcript-steps.js";
import type { WhirAnyClaim, WhirHidingCommitment, WhirHidingProof, WhirVerdict } from "./types.js";
import { Reject, verifyCore } from "./verifier.js";

/** A hiding commitment the verifier has absorbed, with its hiding schedule. */
export interface WhirReadHidingCommitment {
  readonly commitment: WhirHidingCommitment;
  readonly hiding: WhirHidingSchedule;
}

/**
 * Absorbs a hiding commitment into `t` exactly as the prover did (§12.4): the set's code, the
 * committed variables n, the layout's width code (5 or 6), the root. Draws nothing.
 * @throws PcsError `PCS_UNKNOWN_SET`, `PCS_TOO_SMALL_TO_HIDE`, `PCS_TOO_LARGE`, `PCS_BAD_OPTION` (an unknown layout).
 */
export function whirReadHidingCommitmentOn(
  t: DuplexChallenger,
  commitment: WhirHidingCommitment,
): WhirReadHidingCommitment {
  const set = whirParameterSet(commitment.set);
  const hiding = whirHidingSchedule(set, commitment.numVariables, commitment.layout ?? "extra-variable");
  absorbHidingCommitment(t, set, hiding.committedVariables, hidingWidthCode(hiding.layout), commitment.root);
  return { commitment, hiding };
}

/**
 * Verifies a masked opening of `read` at `claims` (about f, m variables; in the layout "top-block"
 * none may weigh τ's block: `PCS_BAD_CLAIM`), continuing transcript
 * `t` right after the hiding commitment. Never throws for a bad proof: every failure is a verdict.
 */
export function whirVerifyHidingOn(
  t: DuplexChallenger,
  read: WhirReadHidingCommitment,
  claims: readonly WhirAnyClaim[],
  proof: WhirHidingProof,
): WhirVerdict {
  try {
    verifyHidingOrThrow(t, read, claims, proof);
    return { ok: true };
  } catch (e) {
    if (e instanceof Reject) return { ok: false, code: e.code, reason: e.message };
    throw e;
  }
}

function verifyHidingOrThrow(
  t: DuplexChallenger,
  read: WhirReadHidingCommitment,
  claims: readonly WhirAnyClaim[],
  proof: WhirHidingProof,
): void {
  const { hiding, commitment } = read;
  const m = hiding.numVariables;
  if (proof.set !== commitment.set || proof.numVariables !== m || proof.layout !== hiding.layout)
    throw new Reject(
      "PCS_SHAPE",
      `the proof is for set ${proof.set}, ${proof.numVariables} variables, layout ${proof.layout}; the commitment for ${commitment.set}, ${m}, ${hiding.layout}`,
    );
  const problem =
    claimsProblem(claims, m) ??
    (hiding.layout === "top-block" ? maskBlockProblem(claims, m, hiding.maskBlockVariables) : null);
  if (problem !== null) throw new Reject("PCS_BAD_CLAIM", problem);
  if (proof.maskedValues.length !== claims.length)
    throw new Reject("PCS_SHAPE", `the proof has ${proof.maskedValues.length} σ′ values for ${claims.length} claims`);
  for (let c = 0; c < proof.maskedValues.length; c++) {
    const p = extProblem(proof.maskedValues[c], `maskedValues[${c}]`);
    if (p !== null) throw new Reject("PCS_SHAPE", p);
  }
  absorbClaims(t, claims);
  absorbExts(t, proof.maskedValues);
  const w = proof.batchWitness;
  if ((w !== null) !== hiding.batchPowBits > 0 || (w !== null && !(Number.isInteger(w) && w >= 0 && w < P)))
    throw new Reject(
      "PCS_SHAPE",
      "a grinding witness before ρ must be present exactly when the hiding schedule grinds",
    );
  if (proof.batchWitness !== null && !t.checkWitness(hiding.batchPowBits, proof.batchWitness))
    throw new Reject(
      "PCS_PROOF_OF_WORK",
      `the grinding witness before ρ does not give ${hiding.batchPowBits} zero bits`,
    );
  const rho = t.sampleExt();
  const schedule = hiding.schedule;
  if (proof.oodAnswers.length !== schedule.initialOodSamples)
    throw new Reject(
      "PCS_SHAPE",
      `the proof has ${proof.oodAnswers.length} out-of-domain answers of h, the set asks for ${schedule.initialOodSamples}`,
    );
  const oodPoints = drawOodPoints(t, schedule.initialOodSamples);
  absorbExts(t, proof.oodAnswers);
  const hClaims = extendClaims(
    claims,
    claims.map((c, i) => extAdd(extMul(rho, c.value), proof.maskedValues[i]! as Ext)),
    hiding.layout,
  );
  const fw = 1 << schedule.rounds[0]!.foldingFactor;
  verifyCore(
    t,
    {
      schedule,
      oodPoints,
      oodAnswers: proof.oodAnswers,
      root: commitment.root,
      firstRowWords: 5 * fw,
      firstRowValues: (row) => scaleAddBase(rho, row.subarray(0, fw), row.subarray(fw)),
    },
    hClaims,
    proof,
  );
}
