/**
 * The WHIR prover (docs/pcs.md §6–7): commitment to a multilinear polynomial given by its
 * hypercube evaluations, then an opening of any number of evaluation claims in one proof.
 * Construction 5.1 of the WHIR paper (ePrint 2024/1586) with the claims as its initial linear
 * constraints and the commitment's out-of-domain samples (§6.1) among them.
 */
import type { Ext } from "../field/extension.js";
import { P, pow } from "../field/koalabear.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { rootOfUnity } from "./domain.js";
import { claimsProblem } from "./checks.js";
import { PcsError } from "./errors.js";
import { buildMerkleTree, openMultiproof, type MerkleTree } from "./merkle.js";
import {
  addScaledEqTableBase, extPowers, liftToExtension, powerPoint, powerPointBase,
} from "./multilinear.js";
import { whirParameterSet, whirSchedule, type WhirSchedule, type WhirSetId } from "./params.js";
import { phase } from "./phases.js";
import { pcsEncode, pcsEqAdd, pcsFold, pcsHorner, pcsMobius, pcsRound } from "./backend.js";
import { absorbClaims, absorbCommitment, absorbExts, drawOodPoints, drawQueries } from "./transcript-steps.js";
import type { CommittedWidth, WhirClaim, WhirCommitment, WhirProof, WhirRoundProof } from "./types.js";

/** What the prover keeps between commitment and opening. */
export interface WhirProverState {
  readonly commitment: WhirCommitment;
  readonly schedule: WhirSchedule;
  /** Out-of-domain points of the commitment. */
  readonly oodPoints: readonly Ext[];
  /** Hypercube evaluations (interleaved extension). */
  readonly evaluations: Uint32Array;
  /** Coefficients (interleaved extension). */
  readonly coefficients: Uint32Array;
  readonly rows: Uint32Array;
  readonly tree: MerkleTree;
}

/**
 * A dishonest prover's changes, for soundness tests (test/pcs/forgery.test.ts): each hook may
 * replace what the honest prover would send, and the prover then continues honestly on a
 * transcript that absorbed the replacement (grinding included), so the proof is a real forgery,
 * not a byte flip.
 */
export interface WhirAdversary {
  /** Replaces [h(0), h(2)] of sumcheck round s of iteration i (i = rounds.length for the final sumcheck). */
  readonly roundPolynomial?: (i: number, s: number, h: [Ext, Ext]) => [Ext, Ext];
  /** Replaces the out-of-domain answers of f_(i+1). */
  readonly oodAnswers?: (i: number, answers: Ext[]) => Ext[];
  /** Replaces the final polynomial's coefficients. */
  readonly finalCoefficients?: (c: Uint32Array) => Uint32Array;
  /** Changes the opened rows of iteration i (in place) before they are sent. */
  readonly rows?: (i: number, rows: Uint32Array) => void;
  /** Changes the multiproof of iteration i (in place) before it is sent. */
  readonly siblings?: (i: number, siblings: Uint32Array) => void;
}

/** Options of `whirCommit`. */
export interface WhirCommitOptions {
  /** The parameter set (default `"cb100-r4"`). */
  readonly set?: WhirSetId;
  /** 1 (default) when `evaluations` holds base-field values, 4 when it holds interleaved extension values. */
  readonly width?: CommittedWidth;
  /** Soundness tests only: changes the first codeword's rows (in place) before they are hashed, committing to a word that is not the polynomial's codeword. */
  readonly corruptCodeword?: (rows: Uint32Array) => void;
}

function checkEvaluations(evaluations: Uint32Array, width: CommittedWidth, set: ReturnType<typeof whirParameterSet>): number {
  if (!(evaluations instanceof Uint32Array)) throw new PcsError("PCS_BAD_POLYNOMIAL", "evaluations must be a Uint32Array of canonical field elements");
  const count = evaluations.length / width;
  const m = Math.log2(count);
  if (!Number.isInteger(count) || !Number.isInteger(m) || m < 1) {
    throw new PcsError("PCS_BAD_POLYNOMIAL", `a multilinear polynomial of m ≥ 1 variables has 2^m evaluations (× ${width} words); got ${evaluations.length} words`, { length: evaluations.length });
  }
  whirSchedule(set, m); // PCS_TOO_LARGE before the values are read
  for (let i = 0; i < evaluations.length; i++) {
    if (evaluations[i]! >= P) throw new PcsError("PCS_BAD_POLYNOMIAL", `evaluations[${i}] = ${evaluations[i]} is not a canonical field element (< p = ${P})`, { index: i });
  }
  return m;
}

/**
 * Commits to the multilinear polynomial whose hypercube evaluations are `evaluations`
 * (index bit j = variable j), on transcript `t`: absorbs the commitment (§6.1), draws the
 * out-of-domain points and absorbs their answers.
 * @throws PcsError `PCS_BAD_POLYNOMIAL` (length not 2^m·width, a non-canonical value), `PCS_TOO_LARGE` (m above the set's limit, before any value is read), `PCS_UNKNOWN_SET`.
 */
export function whirCommitOn(t: DuplexChallenger, evaluations: Uint32Array, options: WhirCommitOptions = {}): WhirProverState {
  const width = options.width ?? 1;
  if (width !== 1 && width !== 4) throw new PcsError("PCS_BAD_POLYNOMIAL", `width must be 1 or 4, got ${String(width)}`);
  const set = whirParameterSet(options.set ?? "cb100-r4");
  const m = checkEvaluations(evaluations, width, set);
  const schedule = whirSchedule(set, m);
  const first = schedule.rounds[0]!;
  const coeffsNative = evaluations.slice();
  pcsMobius(coeffsNative, width);
  const rows = phase("encode", () => pcsEncode(coeffsNative, width, first.logDomain, first.foldingFactor));
  options.corruptCodeword?.(rows);
  const tree = phase("merkle", () => buildMerkleTree(rows, (1 << first.foldingFactor) * width, first.logRows));
  absorbCommitment(t, set, m, width, tree.root);
  const coefficients = width === 1 ? liftToExtension(coeffsNative) : coeffsNative;
  const oodPoints = drawOodPoints(t, schedule.initialOodSamples);
  const oodAnswers = oodPoints.map((z) => pcsHorner(coefficients, z));
  absorbExts(t, oodAnswers);
  const commitment: WhirCommitment = { set: set.id, numVariables: m, width, root: tree.root.slice(), oodAnswers };
  return { commitment, schedule, oodPoints, evaluations: width === 1 ? liftToExtension(evaluations) : evaluations.slice(), coefficients, rows, tree };
}

/**
 * Opens the commitment of `state` at every claim in one proof, continuing transcript `t` right
 * after the commitment (§6.2–7). The claims' values must be the polynomial's; a wrong value gives
 * a proof that does not verify.
 * @throws PcsError `PCS_BAD_CLAIM` for no claim at all, a point without m coordinates, or a coordinate or value that is not 4 canonical field elements.
 */
export function whirOpenOn(t: DuplexChallenger, state: WhirProverState, claims: readonly WhirClaim[], adversary: WhirAdversary = {}): WhirProof {
  const { schedule } = state;
  const m = schedule.numVariables;
  const problem = claimsProblem(claims, m);
  if (problem !== null) throw new PcsError("PCS_BAD_CLAIM", problem);
  absorbClaims(t, claims);
  const gamma = t.sampleExt();
  const initial = schedule.initialOodSamples;
  const coeffs = extPowers(gamma, initial + claims.length);
  let w: Uint32Array = new Uint32Array(4 << m);
  state.oodPoints.forEach((z, j) => pcsEqAdd(w, powerPoint(z, m), coeffs[j]!));
  claims.forEach((c, j) => pcsEqAdd(w, c.point, coeffs[initial + j]!));

  let f: Uint32Array = state.evaluations;
  let c: Uint32Array = state.coefficients;
  let tree = state.tree;
  let rows: Uint32Array = state.rows;
  let width: number = state.commitment.width;
  const rounds: WhirRoundProof[] = [];
  let finalCoefficients: Uint32Array | null = null;
  schedule.rounds.forEach((round, i) => {
    const last = i === schedule.rounds.length - 1;
    const sumcheck: [Ext, Ext][] = [];
    const foldWitnesses: number[] = [];
    for (let s = 0; s < round.foldingFactor; s++) {
      const honest = phase("sumcheck", () => pcsRound(f, w));
      const [h0, h2] = adversary.roundPolynomial ? adversary.roundPolynomial(i, s, honest) : honest;
      t.observeExt(h0);
      t.observeExt(h2);
      sumcheck.push([h0, h2]);
      if (round.foldPowBits > 0) foldWitnesses.push(phase("grinding", () => t.grind(round.foldPowBits)));
      const alpha = t.sampleExt();
      phase("fold", () => {
        f = pcsFold(f, alpha, "evaluations");
        w = pcsFold(w, alpha, "evaluations");
        c = pcsFold(c, alpha, "coefficients");
      });
    }
    let nextRoot: Uint32Array | null = null;
    let nextTree: MerkleTree | null = null;
    let nextRows: Uint32Array | null = null;
    let oodPoints: Ext[] = [];
    let oodAnswers: Ext[] = [];
    if (!last) {
      const next = schedule.rounds[i + 1]!;
      nextRows = phase("encode", () => pcsEncode(c, 4, next.logDomain, next.foldingFactor));
      nextTree = phase("merkle", () => buildMerkleTree(nextRows!, (1 << next.foldingFactor) * 4, next.logRows));
      nextRoot = nextTree.root.slice();
      t.observeDigest(nextRoot);
      oodPoints = drawOodPoints(t, round.nextOodSamples);
      oodAnswers = oodPoints.map((z) => pcsHorner(c, z));
      if (adversary.oodAnswers) oodAnswers = adversary.oodAnswers(i, oodAnswers);
      absorbExts(t, oodAnswers);
    } else {
      finalCoefficients = adversary.finalCoefficients ? adversary.finalCoefficients(c.slice()) : c.slice();
      t.observeMany(finalCoefficients);
    }
    const queryWitness = round.queryPowBits > 0 ? phase("grinding", () => t.grind(round.queryPowBits)) : null;
    const indices = drawQueries(t, round.queries, round.logRows);
    const rowWords = (1 << round.foldingFactor) * width;
    const opened = new Uint32Array(indices.length * rowWords);
    indices.forEach((idx, j) => opened.set(rows.subarray(idx * rowWords, (idx + 1) * rowWords), j * rowWords));
    adversary.rows?.(i, opened);
    const siblings = openMultiproof(tree, indices);
    adversary.siblings?.(i, siblings);
    rounds.push({
      sumcheck, foldWitnesses, nextRoot, nextOodAnswers: oodAnswers, finalCoefficients: last ? finalCoefficients : null,
      queryWitness, rowCount: indices.length, rows: opened, siblings,
    });
    if (!last) {
      const mNext = round.numVariables - round.foldingFactor;
      const g = t.sampleExt();
      const weights = extPowers(g, 1 + oodPoints.length + indices.length);
      oodPoints.forEach((z, j) => pcsEqAdd(w, powerPoint(z, mNext), weights[1 + j]!));
      const omega = rootOfUnity(round.logDomain);
      indices.forEach((idx, j) => {
        const r = pow(omega, idx << round.foldingFactor);
        addScaledEqTableBase(w, powerPointBase(r, mNext), weights[1 + oodPoints.length + j]!);
      });
      tree = nextTree!;
      rows = nextRows!;
      width = 4;
    }
  });
  const finalSumcheck: [Ext, Ext][] = [];
  for (let s = 0; s < schedule.finalVariables; s++) {
    const honest = phase("sumcheck", () => pcsRound(f, w));
    const [h0, h2] = adversary.roundPolynomial ? adversary.roundPolynomial(schedule.rounds.length, s, honest) : honest;
    t.observeExt(h0);
    t.observeExt(h2);
    finalSumcheck.push([h0, h2]);
    const alpha = t.sampleExt();
    phase("fold", () => {
      f = pcsFold(f, alpha, "evaluations");
      w = pcsFold(w, alpha, "evaluations");
    });
  }
  return { set: schedule.set.id, numVariables: m, width: state.commitment.width, rounds, finalSumcheck };
}
