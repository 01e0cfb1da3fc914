/**
 * The WHIR verifier (docs/pcs.md §6–8): replays the transcript of an opening, checks every
 * grinding witness and Merkle multiproof, folds the opened rows, and ends with the one check
 * that ties everything together: the last sumcheck claim equals f̂_final(α_final) · ŵ(α), where
 * ŵ is the combination of every constraint the protocol introduced.
 */
import { extAdd, extEq, extMul, type Ext } from "../field/extension.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { rootOfUnity } from "./domain.js";
import { hashRows, hashRows24, multiproofSize, verifyMultiproof } from "./merkle.js";
import { pcsFoldRows, pcsPermute24 } from "./backend.js";
import {
  blocksWeightAt,
  eqEval,
  eqEvalBase,
  powerPointBase,
  evaluateCoefficients,
  evaluateUnivariateAtBase,
  extPowers,
  powerPoint,
} from "./multilinear.js";
import { whirParameterSet, whirSchedule, type WhirSchedule } from "./params.js";
import { pow } from "../field/koalabear.js";
import { roundValueAt } from "./sumcheck.js";
import { absorbClaims, absorbCommitment, absorbExts, drawOodPoints, drawQueries } from "./transcript-steps.js";
import type { WhirAnyClaim, WhirClaim, WhirCommitment, WhirProof, WhirVerdict, WhirWeightBlock } from "./types.js";
import type { PcsRejectCode } from "./errors.js";
import { claimBlocks, claimsProblem } from "./checks.js";

/** A commitment the verifier has absorbed: its schedule and out-of-domain points. */
export interface WhirReadCommitment {
  readonly commitment: WhirCommitment;
  readonly schedule: WhirSchedule;
  readonly oodPoints: readonly Ext[];
}

/**
 * Absorbs a commitment into `t` exactly as the prover did (§6.1) and draws its out-of-domain points.
 * @throws PcsError `PCS_UNKNOWN_SET`, `PCS_TOO_LARGE`, `PCS_DECODE` (wrong number of out-of-domain answers).
 */
export function whirReadCommitmentOn(t: DuplexChallenger, commitment: WhirCommitment): WhirReadCommitment {
  const set = whirParameterSet(commitment.set);
  const schedule = whirSchedule(set, commitment.numVariables);
  absorbCommitment(t, set, commitment.numVariables, commitment.width, commitment.root);
  const oodPoints = drawOodPoints(t, schedule.initialOodSamples);
  absorbExts(t, commitment.oodAnswers);
  return { commitment, schedule, oodPoints };
}

export class Reject extends Error {
  constructor(
    readonly code: PcsRejectCode,
    reason: string,
  ) {
    super(reason);
  }
}

/** One term of the combined weight: coeff·eq(point, α[offset…]), or coeff times a block weight at α (§4.7). */
interface Constraint {
  readonly coeff: Ext;
  readonly blocks?: readonly WhirWeightBlock[];
  readonly point: readonly Ext[];
  /** A point of base-field coordinates instead of `point` (the queries'). */
  readonly basePoint?: readonly number[];
  /** Index into α of the point's first variable. */
  readonly offset: number;
}

/**
 * Verifies an opening of `read` at `claims`, continuing transcript `t` right after the
 * commitment. Never throws for a bad proof: every failure is a verdict.
 */
export function whirVerifyOn(
  t: DuplexChallenger,
  read: WhirReadCommitment,
  claims: readonly WhirAnyClaim[],
  proof: WhirProof,
): WhirVerdict {
  try {
    verifyOrThrow(t, read, claims, proof);
    return { ok: true };
  } catch (e) {
    if (e instanceof Reject) return { ok: false, code: e.code, reason: e.message };
    throw e;
  }
}

function verifyOrThrow(
  t: DuplexChallenger,
  read: WhirReadCommitment,
  claims: readonly WhirAnyClaim[],
  proof: WhirProof,
): void {
  const { schedule, commitment } = read;
  const m = schedule.numVariables;
  if (proof.set !== commitment.set || proof.numVariables !== m || proof.width !== commitment.width) {
    throw new Reject(
      "PCS_SHAPE",
      `the proof is for set ${proof.set}, ${proof.numVariables} variables, width ${proof.width}; the commitment for ${commitment.set}, ${m}, ${commitment.width}`,
    );
  }
  if (commitment.oodAnswers.length !== schedule.initialOodSamples)
    throw new Reject(
      "PCS_SHAPE",
      `the commitment has ${commitment.oodAnswers.length} out-of-domain answers, the set asks for ${schedule.initialOodSamples}`,
    );
  const width = commitment.width;
  verifyCore(
    t,
    {
      schedule,
      oodPoints: read.oodPoints,
      oodAnswers: commitment.oodAnswers,
      root: commitment.root,
      firstRowWords: (1 << schedule.rounds[0]!.foldingFactor) * width,
      firstRowWidth: width,
    },
    claims,
    proof,
  );
}

/**
 * What the verifier core reads of a commitment: the schedule, the out-of-domain points and
 * answers that join the claims, the first root, and how one opened row of the first iteration
 * becomes its leaf digest and the row of extension values that is folded (the plain commitment
 * hashes the row and lifts it; the hiding one, docs/pcs.md §12, hashes F′'s and G′'s rows together
 * and combines them into h's).
 */
export interface VerifyCoreInput {
  readonly schedule: WhirSchedule;
  readonly oodPoints: readonly Ext[];
  readonly oodAnswers: readonly Ext[];
  readonly root: ArrayLike<number>;
  /** Words of one opened row of the first iteration. */
  readonly firstRowWords: number;
  /** The values an opened first-iteration row folds (`firstRowWidth` words each, 2^k of them); its leaf is the sponge of its words. Absent: the row's words themselves. */
  readonly firstRowValues?: (row: Uint32Array) => Uint32Array;
  /** Words per value of `firstRowValues`: 1 (base-field values) or 4 (interleaved extension values; the default). */
  readonly firstRowWidth?: 1 | 4;
}

/** The iterations of an opening (§6.2, §8); throws `Reject` for a bad proof. */
export function verifyCore(
  t: DuplexChallenger,
  input: VerifyCoreInput,
  claims: readonly WhirAnyClaim[],
  proof: Pick<WhirProof, "rounds" | "finalSumcheck">,
): void {
  const { schedule } = input;
  const m = schedule.numVariables;
  if (proof.rounds.length !== schedule.rounds.length)
    throw new Reject(
      "PCS_SHAPE",
      `the proof has ${proof.rounds.length} iterations, the schedule ${schedule.rounds.length}`,
    );
  if (proof.finalSumcheck.length !== schedule.finalVariables)
    throw new Reject(
      "PCS_SHAPE",
      `the proof has ${proof.finalSumcheck.length} final sumcheck rounds, the schedule ${schedule.finalVariables}`,
    );
  const problem = claimsProblem(claims, m);
  if (problem !== null) throw new Reject("PCS_BAD_CLAIM", problem);
  absorbClaims(t, claims);
  const gamma = t.sampleExt();
  const initial = schedule.initialOodSamples;
  const coeffs = extPowers(gamma, initial + claims.length);
  const constraints: Constraint[] = [];
  let claim: Ext = [0, 0, 0, 0];
  input.oodPoints.forEach((z, j) => {
    constraints.push({ coeff: coeffs[j]!, point: powerPoint(z, m), offset: 0 });
    claim = extAdd(claim, extMul(coeffs[j]!, input.oodAnswers[j]!));
  });
  claims.forEach((c, j) => {
    const blocks = claimBlocks(c);
    if (blocks !== null) constraints.push({ coeff: coeffs[initial + j]!, blocks, point: [], offset: 0 });
    else constraints.push({ coeff: coeffs[initial + j]!, point: (c as WhirClaim).point, offset: 0 });
    claim = extAdd(claim, extMul(coeffs[initial + j]!, c.value));
  });

  const alphas: Ext[] = [];
  let root: ArrayLike<number> = input.root;
  let first = true;
  let finalCoefficients: Uint32Array | null = null;
  schedule.rounds.forEach((round, i) => {
    const rp = proof.rounds[i]!;
    const last = i === schedule.rounds.length - 1;
    const k = round.foldingFactor;
    if (rp.sumcheck.length !== k)
      throw new Reject("PCS_SHAPE", `iteration ${i} has ${rp.sumcheck.length} sumcheck rounds, the schedule ${k}`);
    if (rp.foldWitnesses.length !== (round.foldPowBits > 0 ? k : 0))
      throw new Reject("PCS_SHAPE", `iteration ${i} has ${rp.foldWitnesses.length} folding witnesses`);
    const roundAlphas: Ext[] = [];
    rp.sumcheck.forEach(([h0, h2], s) => {
      t.observeExt(h0);
      t.observeExt(h2);
      if (round.foldPowBits > 0 && !t.checkWitness(round.foldPowBits, rp.foldWitnesses[s]!)) {
        throw new Reject(
          "PCS_PROOF_OF_WORK",
          `iteration ${i}, sumcheck round ${s}: the grinding witness does not give ${round.foldPowBits} zero bits`,
        );
      }
      const alpha = t.sampleExt();
      claim = roundValueAt(claim, h0, h2, alpha);
      roundAlphas.push(alpha);
    });
    const offset = alphas.length;
    alphas.push(...roundAlphas);
    let oodPoints: Ext[] = [];
    if (!last) {
      if (rp.nextRoot === null || rp.nextRoot.length !== 8 || rp.finalCoefficients !== null)
        throw new Reject("PCS_SHAPE", `iteration ${i} must carry the next root and no final polynomial`);
      if (rp.nextOodAnswers.length !== round.nextOodSamples)
        throw new Reject(
          "PCS_SHAPE",
          `iteration ${i} has ${rp.nextOodAnswers.length} out-of-domain answers, the schedule ${round.nextOodSamples}`,
        );
      t.observeDigest(rp.nextRoot);
      oodPoints = drawOodPoints(t, round.nextOodSamples);
      absorbExts(t, rp.nextOodAnswers);
    } else {
      if (rp.nextRoot !== null || rp.nextOodAnswers.length !== 0 || rp.finalCoefficients === null)
        throw new Reject("PCS_SHAPE", "the last iteration must carry the final polynomial and no next root");
      if (rp.finalCoefficients.length !== 4 << schedule.finalVariables)
        throw new Reject(
          "PCS_SHAPE",
          `the final polynomial has ${rp.finalCoefficients.length / 4} coefficients, the schedule ${1 << schedule.finalVariables}`,
        );
      finalCoefficients = rp.finalCoefficients;
      t.observeMany(finalCoefficients);
    }
    if ((rp.queryWitness !== null) !== round.queryPowBits > 0)
      throw new Reject(
        "PCS_SHAPE",
        `iteration ${i}: a query grinding witness must be present exactly when the round grinds`,
      );
    if (rp.queryWitness !== null && !t.checkWitness(round.queryPowBits, rp.queryWitness)) {
      throw new Reject(
        "PCS_PROOF_OF_WORK",
        `iteration ${i}: the query grinding witness does not give ${round.queryPowBits} zero bits`,
      );
    }
    const indices = drawQueries(t, round.queries, round.logRows);
    const rowWords = first ? input.firstRowWords : (1 << k) * 4;
    if (rp.rowCount !== indices.length || rp.rows.length !== indices.length * rowWords)
      throw new Reject("PCS_SHAPE", `iteration ${i} opens ${rp.rowCount} rows; the queries ask for ${indices.length}`);
    if (rp.siblings.length !== 8 * multiproofSize(round.logRows, indices))
      throw new Reject(
        "PCS_SHAPE",
        `iteration ${i}: the multiproof has ${rp.siblings.length / 8} digests, the queries need ${multiproofSize(round.logRows, indices)}`,
      );
    const leaves =
      schedule.set.leafWidth === 24
        ? hashRows24(rp.rows, rowWords, indices.length, pcsPermute24)
        : hashRows(rp.rows, rowWords, indices.length);
    // The rows' values back to back (the first iteration's through `firstRowValues` when given).
    const valueWidth = first ? (input.firstRowWidth ?? 4) : 4;
    let values = rp.rows;
    if (first && input.firstRowValues !== undefined) {
      const valueWords = valueWidth << k;
      values = new Uint32Array(indices.length * valueWords);
      for (let j = 0; j < indices.length; j++)
        values.set(input.firstRowValues(rp.rows.subarray(j * rowWords, (j + 1) * rowWords)), j * valueWords);
    }
    if (!verifyMultiproof(root, round.logRows, indices, leaves, rp.siblings))
      throw new Reject("PCS_MERKLE", `iteration ${i}: the opened rows do not hash to the committed root`);
    const omega = rootOfUnity(round.logDomain);
    const xs = indices.map((idx) => pow(omega, idx));
    const folds = pcsFoldRows({ rows: values, width: valueWidth, k, xs, zeta: rootOfUnity(k), alphas: roundAlphas });
    if (!last) {
      const mNext = round.numVariables - k;
      const g = t.sampleExt();
      const weights = extPowers(g, 1 + oodPoints.length + indices.length);
      oodPoints.forEach((z, j) => {
        constraints.push({ coeff: weights[1 + j]!, point: powerPoint(z, mNext), offset: offset + k });
        claim = extAdd(claim, extMul(weights[1 + j]!, rp.nextOodAnswers[j]!));
      });
      indices.forEach((idx, j) => {
        const r = pow(omega, idx << k);
        const wj = weights[1 + oodPoints.length + j]!;
        constraints.push({ coeff: wj, point: [], basePoint: powerPointBase(r, mNext), offset: offset + k });
        claim = extAdd(claim, extMul(wj, folds[j]!));
      });
      root = rp.nextRoot!;
      first = false;
    } else {
      indices.forEach((idx, j) => {
        const r = pow(omega, idx << k);
        if (!extEq(folds[j]!, evaluateUnivariateAtBase(finalCoefficients!, r))) {
          throw new Reject(
            "PCS_FINAL_POLYNOMIAL",
            `iteration ${i}: the fold of row ${idx} disagrees with the final polynomial`,
          );
        }
      });
    }
  });
  for (const [h0, h2] of proof.finalSumcheck) {
    t.observeExt(h0);
    t.observeExt(h2);
    const alpha = t.sampleExt();
    claim = roundValueAt(claim, h0, h2, alpha);
    alphas.push(alpha);
  }
  const finalPoint = alphas.slice(alphas.length - schedule.finalVariables);
  const fAtPoint = evaluateCoefficients(finalCoefficients!, finalPoint);
  let wAtPoint: Ext = [0, 0, 0, 0];
  const eqTables = new Map<number, Uint32Array>();
  for (const c of constraints) {
    const at =
      c.blocks !== undefined
        ? blocksWeightAt(c.blocks, alphas, eqTables)
        : c.basePoint !== undefined
          ? eqEvalBase(c.basePoint, alphas.slice(c.offset))
          : eqEval(c.point, alphas.slice(c.offset));
    wAtPoint = extAdd(wAtPoint, extMul(c.coeff, at));
  }
  if (!extEq(claim, extMul(fAtPoint, wAtPoint)))
    throw new Reject(
      "PCS_FINAL_CLAIM",
      "the last sumcheck claim is not the final polynomial times the combined weight at the final point",
    );
}
