/**
 * The hiding commitment and the masked opening (docs/pcs.md §12; docs/profile-v3.md §11.5).
 * The vector f is committed as the bounded-query encoding f′ = f + E·τ (Aurora, Ben-Sasson et
 * al., EUROCRYPT 2019: t random coefficients make any t codeword values uniform), E = Y the new top
 * variable (layout "extra-variable", f′ of m + 1 variables) or the indicator of f's top 2^j values
 * (layout "top-block", m variables), beside a uniformly random mask g′ over K of as many
 * variables, in one Merkle tree whose leaf
 * j hashes row j of F′ and then row j of G′. An opening of claims about f sends σ′_c = ⟨w_c, g′⟩,
 * draws ρ and runs the WHIR opening (openCore) on h = ρ·f′ + g′ (Aurora's and Virgo's masked
 * proximity test), the first iteration opening F′'s and G′'s rows.
 */
import type { Ext } from "../field/extension.js";
import { extAdd, extMul } from "../field/extension.js";
import { add, P } from "../field/koalabear.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import { claimBlocks, claimsProblem } from "./checks.js";
import { codewordOfRows, rowsOfCodeword } from "./encode.js";
import { PcsError } from "./errors.js";
import { hidingWidthCode, whirHidingSchedule, type WhirHidingSchedule } from "./hiding-params.js";
import type { MerkleTree } from "./merkle.js";
import { coefficientsToEvaluations, extAt, laneWeights } from "./multilinear.js";
import { DEFAULT_HIDING_WHIR_SET, whirParameterSet, type WhirSetId } from "./params.js";
import { phase } from "./phases.js";
import {
  pcsCodeword,
  pcsFold,
  pcsHorner,
  pcsMerklePair,
  pcsMobius,
  pcsRelease,
  pcsResident,
  pcsScaleAdd,
} from "./backend.js";
import { extMulAddTo } from "../field/ext-inline.js";
import { grindOrReplace, openCore, type WhirAdversary, type WhirOpenOptions } from "./prover.js";
import { extendClaims, maskBlockProblem } from "./hiding-steps.js";
import { cryptoRandomSource, type WhirRandomSource } from "./random.js";
import { absorbClaims, absorbExts, absorbHidingCommitment, drawOodPoints } from "./transcript-steps.js";
import type { WhirAnyClaim, WhirClaim, WhirHidingCommitment, WhirHidingLayout, WhirHidingProof } from "./types.js";
import { giveBackWords, takeCopyOf, takeWords } from "../memory/recycled-words.js";

/** Options of `whirCommitHiding` / `whirCommitHidingOn`. */
export interface WhirHidingCommitOptions {
  /** The parameter set (default `"cb100-r4-s3-l24"`). */
  readonly set?: WhirSetId;
  /**
   * Where τ lies (docs/pcs.md §12.10; default `"extra-variable"`): `"top-block"` keeps f′ at f's m
   * variables, τ in f's top 2^j values (j = `whirHidingSchedule(set, m, "top-block").maskBlockVariables`),
   * which the opening's claims must not weigh; half the work of `"extra-variable"`.
   */
  readonly layout?: WhirHidingLayout;
  /**
   * Where τ's t coefficients and then g′'s 4·2^(m+1) value words come from (in that order); default
   * `cryptoRandomSource`. `whirSeededRandomSource(seed)` for deterministic tests only.
   */
  readonly random?: WhirRandomSource;
  /** Soundness tests only: changes the rows of F′ (2^k words each) and of G′ (4·2^k words each) in place before they are hashed. */
  readonly corruptRows?: (fRows: Uint32Array, gRows: Uint32Array) => void;
}

/** What the prover keeps between a hiding commitment and its openings. */
export interface WhirHidingProverState {
  readonly commitment: WhirHidingCommitment;
  readonly hiding: WhirHidingSchedule;
  /** f′'s 2^n hypercube values and coefficients (base field; n = `hiding.committedVariables`). */
  readonly fEvaluations: Uint32Array;
  readonly fCoefficients: Uint32Array;
  /** g′'s 2^n hypercube values and coefficients (interleaved extension). */
  readonly gEvaluations: Uint32Array;
  readonly gCoefficients: Uint32Array;
  /** F′'s codeword (base) and G′'s (extension), natural order. */
  readonly fCodeword: Uint32Array;
  readonly gCodeword: Uint32Array;
  readonly tree: MerkleTree;
}

/** A dishonest prover's changes to a masked opening (soundness tests), beside `WhirAdversary`'s for the WHIR iterations on h. */
export interface WhirHidingAdversary extends WhirAdversary {
  /** Replaces the σ′ values before they are sent (the prover then continues honestly). */
  readonly maskedValues?: (values: Ext[]) => Ext[];
  /** Replaces the grinding witness before ρ (absorbed as a witness is, whether or not it grinds to zero bits); `transcript` is a copy of the prover's just before it. */
  readonly batchWitness?: (honest: number, transcript: DuplexChallenger) => number;
  /** Replaces h's out-of-domain answers before they are sent. */
  readonly maskedOodAnswers?: (answers: Ext[]) => Ext[];
  /** Changes the first iteration's opened rows (F′'s 2^k words then G′'s 4·2^k, per row) in place, knowing ρ. */
  readonly firstRows?: (rho: Ext, rows: Uint32Array) => void;
  /** Opens a state opened before (tests of forgeries against one commitment): the openings together no longer hide f. */
  readonly reopen?: boolean;
}

function vectorVariables(evaluations: Uint32Array): number {
  if (!(evaluations instanceof Uint32Array))
    throw new PcsError("PCS_BAD_POLYNOMIAL", "evaluations must be a Uint32Array of canonical field elements");
  const m = Math.log2(evaluations.length);
  if (!Number.isInteger(m) || m < 1)
    throw new PcsError(
      "PCS_BAD_POLYNOMIAL",
      `a hiding commitment takes 2^m base-field values (m ≥ 1); got ${evaluations.length} words`,
      { length: evaluations.length },
    );
  return m;
}

/**
 * Commits to the vector `evaluations` (2^m base-field values, index bit j = variable j) with the
 * hiding commitment of docs/pcs.md §12.3, on transcript `t` (absorbs §12.4's commitment step).
 * @throws PcsError `PCS_BAD_POLYNOMIAL` (not 2^m canonical values), `PCS_TOO_SMALL_TO_HIDE` (m below
 *   `minHidingVariables(set, layout)`), `PCS_TOO_LARGE` (n above the set's limit), `PCS_UNKNOWN_SET`,
 *   `PCS_BAD_OPTION` (another layout) — all before any work.
 */
export function whirCommitHidingOn(
  t: DuplexChallenger,
  evaluations: Uint32Array,
  options: WhirHidingCommitOptions = {},
): WhirHidingProverState {
  const set = whirParameterSet(options.set ?? DEFAULT_HIDING_WHIR_SET);
  const m = vectorVariables(evaluations);
  const hiding = whirHidingSchedule(set, m, options.layout ?? "extra-variable");
  for (let i = 0; i < evaluations.length; i++)
    if (evaluations[i]! >= P)
      throw new PcsError(
        "PCS_BAD_POLYNOMIAL",
        `evaluations[${i}] = ${evaluations[i]} is not a canonical field element (< p = ${P})`,
        { index: i },
      );
  const random = options.random ?? cryptoRandomSource;
  const size = 1 << m;
  const total = 1 << hiding.committedVariables;
  const first = hiding.schedule.rounds[0]!;
  const k = first.foldingFactor;
  // f′'s coefficients: f's (Möbius) padded with zeros to 2^n, plus τ's t random ones from
  // 2^n − 2^j (the Y = 1 half, or f's top block). The tables come from this thread's recycled
  // arrays (any contents: each is written in full) and go back with `releaseWhirHidingState`.
  const fCoefficients = takeWords(total);
  const fc = pcsResident(evaluations);
  try {
    pcsMobius(fc, 1);
    fCoefficients.set(fc.subarray(0, size));
  } finally {
    pcsRelease(fc);
  }
  fCoefficients.fill(0, size);
  const tau = new Uint32Array(hiding.maskCoefficients);
  random(tau);
  const block = 2 ** hiding.maskBlockVariables;
  const at = total - block;
  for (let i = 0; i < tau.length; i++) fCoefficients[at + i] = add(fCoefficients[at + i]!, tau[i]!);
  // f′'s values: f's (on both halves of Y in the layout "extra-variable", f not depending on Y),
  // plus E·τ's, which are τ's multilinear values over the block's j variables, in the block only.
  const fEvaluations = takeWords(total);
  for (let o = 0; o < total; o += size) fEvaluations.set(evaluations, o);
  const tauValues = new Uint32Array(block);
  tauValues.set(tau);
  coefficientsToEvaluations(tauValues, 1);
  for (let i = 0; i < block; i++) fEvaluations[at + i] = add(fEvaluations[at + i]!, tauValues[i]!);
  // g′: 2^n uniformly random extension values, and their coefficients.
  const gEvaluations = takeWords(4 * total);
  random(gEvaluations);
  const gc = pcsResident(gEvaluations);
  let gCoefficients: Uint32Array;
  try {
    pcsMobius(gc, 4);
    gCoefficients = takeCopyOf(gc);
  } finally {
    pcsRelease(gc);
  }
  let fCodeword = codeword(fCoefficients, 1, first.logDomain);
  let gCodeword = codeword(gCoefficients, 4, first.logDomain);
  if (options.corruptRows) {
    const fRows = rowsOfCodeword(fCodeword, 1, first.logDomain, k);
    const gRows = rowsOfCodeword(gCodeword, 4, first.logDomain, k);
    options.corruptRows(fRows, gRows);
    fCodeword = codewordOfRows(fRows, 1, first.logDomain, k);
    gCodeword = codewordOfRows(gRows, 4, first.logDomain, k);
  }
  const tree = phase("merkle", () => pcsMerklePair(fCodeword, 1, gCodeword, 4, first.logDomain, k, set.leafWidth));
  absorbHidingCommitment(t, set, hiding.committedVariables, hidingWidthCode(hiding.layout), tree.root);
  const commitment: WhirHidingCommitment = {
    set: set.id,
    numVariables: m,
    layout: hiding.layout,
    root: tree.root.slice(),
  };
  return { commitment, hiding, fEvaluations, fCoefficients, gEvaluations, gCoefficients, fCodeword, gCodeword, tree };
}

function codeword(coefficients: Uint32Array, width: number, logDomain: number): Uint32Array {
  const working = phase("encode", () => pcsCodeword(coefficients, width, logDomain));
  try {
    return takeCopyOf(working);
  } finally {
    pcsRelease(working);
  }
}

/** Hiding prover states whose tables went back to the recycled arrays. */
const released = new WeakSet<WhirHidingProverState>();

/**
 * Gives the tables of a hiding prover state (f′'s and g′'s values, coefficients and codewords:
 * (10 + 5/rate)·2^n words, 640 MiB at n = 23 and rate 1/2) back to this thread's recycled arrays once its opening is
 * encoded, so that the next hiding commitment reuses their pages (src/memory/recycled-words.ts).
 * The state cannot be opened afterwards and its tables must not be read. Idempotent.
 * @throws nothing.
 * @example
 *   const state = whirCommitHidingOn(t, f);
 *   const bytes = encodeWhirHidingProof(whirOpenHidingOn(t, state, claims));
 *   releaseWhirHidingState(state);
 */
export function releaseWhirHidingState(state: WhirHidingProverState): void {
  if (released.has(state)) return;
  released.add(state);
  giveBackWords([
    state.fCoefficients,
    state.fEvaluations,
    state.gEvaluations,
    state.gCoefficients,
    state.fCodeword,
    state.gCodeword,
  ]);
}

/** Hiding prover states that have been opened (each may be opened once). */
const opened = new WeakSet<WhirHidingProverState>();

/** σ′ (or any claim's value) of an extension table of 2^n values for a claim about its first 2^m (all of them in the layout "top-block"). */
function claimValueOf(evaluations: Uint32Array, coefficients: Uint32Array, m: number, c: WhirAnyClaim): Ext {
  const blocks = claimBlocks(c);
  if (blocks !== null) {
    const acc = new Uint32Array(4);
    for (const b of blocks)
      laneWeights(b).forEach((w, i) => {
        const at = 4 * (b.offset + i);
        extMulAddTo(
          acc,
          0,
          1,
          w[0],
          w[1],
          w[2],
          w[3],
          evaluations[at]!,
          evaluations[at + 1]!,
          evaluations[at + 2]!,
          evaluations[at + 3]!,
        );
      });
    return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
  }
  // Y = 0 keeps the coefficients without Y (the lower half; the whole table when n = m), folded variable by variable on the backend.
  const point = (c as WhirClaim).point;
  let cur = pcsResident(coefficients.subarray(0, 4 << m));
  try {
    for (const z of point) {
      const next = pcsFold(cur, z, "coefficients");
      pcsRelease(cur);
      cur = next;
    }
    return extAt(cur, 0);
  } finally {
    pcsRelease(cur);
  }
}

/**
 * The masked opening (docs/pcs.md §12.4) of the claims about f, continuing transcript `t` right
 * after the hiding commitment: absorbs the claims, sends σ′, grinds, draws ρ, sends h's
 * out-of-domain answers and runs the WHIR opening of h = ρ·f′ + g′ at the claims (w_c, ρ·σ_c + σ′_c).
 * A claim whose value is not f's gives a proof that does not verify. A hiding commitment is opened
 * once: τ masks the rows of one opening, so a second one (another call with the same state) is refused.
 * @throws PcsError `PCS_ALREADY_OPENED` (the state was opened before); `PCS_BAD_CLAIM` (no claim, a point without m coordinates, a malformed block or value,
 *   in the layout "top-block" a claim that weighs τ's block);
 *   `PCS_BAD_OPTION`, `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED` (the `workers` option, which hashes the later iterations' trees).
 */
export function whirOpenHidingOn(
  t: DuplexChallenger,
  state: WhirHidingProverState,
  claims: readonly WhirAnyClaim[],
  adversary: WhirHidingAdversary = {},
  options: WhirOpenOptions = {},
): WhirHidingProof {
  const { hiding } = state;
  const m = hiding.numVariables;
  if (opened.has(state) && adversary.reopen !== true)
    throw new PcsError(
      "PCS_ALREADY_OPENED",
      "this hiding commitment was opened before: a second opening would reveal the committed vector (τ masks one opening's rows); commit again for other claims",
    );
  if (released.has(state))
    throw new PcsError(
      "PCS_ALREADY_OPENED",
      "this hiding commitment's tables were released (releaseWhirHidingState): commit again to open",
    );
  const problem =
    claimsProblem(claims, m) ??
    (hiding.layout === "top-block" ? maskBlockProblem(claims, m, hiding.maskBlockVariables) : null);
  if (problem !== null) throw new PcsError("PCS_BAD_CLAIM", problem);
  opened.add(state);
  absorbClaims(t, claims);
  let maskedValues = claims.map((c) => claimValueOf(state.gEvaluations, state.gCoefficients, m, c));
  if (adversary.maskedValues) maskedValues = adversary.maskedValues(maskedValues);
  absorbExts(t, maskedValues);
  const batchWitness = hiding.batchPowBits > 0 ? grindOrReplace(t, hiding.batchPowBits, adversary.batchWitness) : null;
  const rho = t.sampleExt();
  // h's tables are working tables of the backend, which the opening takes over (a second release is a no-op).
  const hEvaluations = pcsScaleAdd(rho, state.fEvaluations, state.gEvaluations);
  const hCoefficients = pcsScaleAdd(rho, state.fCoefficients, state.gCoefficients);
  try {
    return openMasked(t, state, claims, adversary, options, {
      rho,
      maskedValues,
      batchWitness,
      hEvaluations,
      hCoefficients,
    });
  } finally {
    pcsRelease(hEvaluations);
    pcsRelease(hCoefficients);
  }
}

/** The rest of a masked opening once h's tables exist (§12.4 steps 5–6). */
function openMasked(
  t: DuplexChallenger,
  state: WhirHidingProverState,
  claims: readonly WhirAnyClaim[],
  adversary: WhirHidingAdversary,
  options: WhirOpenOptions,
  h: {
    readonly rho: Ext;
    readonly maskedValues: Ext[];
    readonly batchWitness: number | null;
    readonly hEvaluations: Uint32Array;
    readonly hCoefficients: Uint32Array;
  },
): WhirHidingProof {
  const { hiding } = state;
  const m = hiding.numVariables;
  const { rho, maskedValues, batchWitness, hEvaluations, hCoefficients } = h;
  const oodPoints = drawOodPoints(t, hiding.schedule.initialOodSamples);
  let oodAnswers = oodPoints.map((z) => pcsHorner(hCoefficients, z));
  if (adversary.maskedOodAnswers) oodAnswers = adversary.maskedOodAnswers(oodAnswers);
  absorbExts(t, oodAnswers);
  const hClaims = extendClaims(
    claims,
    claims.map((c, i) => extAdd(extMul(rho, c.value), maskedValues[i]!)),
    hiding.layout,
  );
  const first = hiding.schedule.rounds[0]!;
  const k = first.foldingFactor;
  const rowsCount = 1 << first.logRows;
  const fw = 1 << k;
  const firstRows = (indices: readonly number[]): Uint32Array => {
    const out = new Uint32Array(indices.length * 5 * fw);
    indices.forEach((j, r) => {
      const o = r * 5 * fw;
      for (let s = 0; s < fw; s++) {
        const at = j + s * rowsCount;
        out[o + s] = state.fCodeword[at]!;
        for (let l = 0; l < 4; l++) out[o + fw + 4 * s + l] = state.gCodeword[4 * at + l]!;
      }
    });
    adversary.firstRows?.(rho, out);
    return out;
  };
  const { rounds, finalSumcheck } = openCore(
    t,
    {
      schedule: hiding.schedule,
      oodPoints,
      evaluations: hEvaluations,
      coefficients: hCoefficients,
      width: 4,
      resident: true,
      tree: state.tree,
      firstRows,
    },
    hClaims,
    adversary,
    options,
  );
  return {
    set: hiding.set.id,
    numVariables: m,
    layout: hiding.layout,
    maskedValues,
    batchWitness,
    oodAnswers,
    rounds,
    finalSumcheck,
  };
}
