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
import { claimBlocks, claimsProblem } from "./checks.js";
import { PcsError } from "./errors.js";
import { codewordOfRows, gatherRows, rowsOfCodeword } from "./encode.js";
import { buildMerkleTree, openMultiproof, type MerkleTree } from "./merkle.js";
import { addBlockWeights, extPowers, laneWeights, powerPoint, powerPointBase } from "./multilinear.js";
import {
  DEFAULT_WHIR_SET,
  whirParameterSet,
  whirSchedule,
  type LeafWidth,
  type WhirSchedule,
  type WhirSetId,
} from "./params.js";
import { giveBackWords, takeCopyOf } from "../memory/recycled-words.js";
import { phase } from "./phases.js";
import {
  activeKernelRunner,
  pcsCodeword,
  pcsEqMany,
  pcsEqAdd,
  pcsEqAddBaseMany,
  pcsFirstNoncanonical,
  pcsFold,
  pcsFoldBase,
  pcsHorner,
  pcsHornerBase,
  pcsLift,
  pcsMobius,
  pcsRelease,
  pcsResident,
  pcsRound,
  pcsRoundBase,
  pcsZeros,
} from "./backend.js";
import { merkleOn, resolvePcsWorkers, withPcsWorkers, type PcsMerkleWorkers } from "./parallel.js";
import { absorbClaims, absorbCommitment, absorbExts, drawOodPoints, drawQueries } from "./transcript-steps.js";
import type { CommittedWidth, WhirAnyClaim, WhirClaim, WhirCommitment, WhirProof, WhirRoundProof } from "./types.js";

/** What the prover keeps between commitment and opening. */
export interface WhirProverState {
  readonly commitment: WhirCommitment;
  readonly schedule: WhirSchedule;
  /** Out-of-domain points of the commitment. */
  readonly oodPoints: readonly Ext[];
  /** Hypercube evaluations (`commitment.width` words each, as committed). */
  readonly evaluations: Uint32Array;
  /** Coefficients (`commitment.width` words each). */
  readonly coefficients: Uint32Array;
  /** The first codeword in natural order (`commitment.width` words per value; its rows are gathered from it, docs/pcs.md §4.1). */
  readonly codeword: Uint32Array;
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
  /**
   * Replaces a grinding witness of iteration i: before folding challenge s (`"fold"`) or before
   * the queries (`"query"`, s = 0). It is absorbed as a witness is, whether or not it grinds to
   * zero bits; `transcript` is a copy of the prover's just before it.
   */
  readonly witness?: (
    kind: "fold" | "query",
    i: number,
    s: number,
    honest: number,
    transcript: DuplexChallenger,
  ) => number;
  /** Sends no query grinding witness in iteration i, and absorbs none (a prover that skips the grinding). */
  readonly omitQueryWitness?: (i: number) => boolean;
}

/** Grinds `bits` bits on `t` (§4.6), or absorbs the witness `replace` chooses instead (soundness tests). */
export function grindOrReplace(
  t: DuplexChallenger,
  bits: number,
  replace?: (honest: number, transcript: DuplexChallenger) => number,
): number {
  if (replace === undefined) return phase("grinding", () => grindOn(t, bits));
  const w = replace(t.clone().grind(bits), t.clone());
  t.checkWitness(bits, w);
  return w;
}

/** Fewest bits whose grinding the active pool searches (below, a search takes well under a millisecond). */
const POOL_GRIND_BITS = 11;

/** `t.grind(bits)`, the search spread over the active pool when there is one (the same witness). */
function grindOn(t: DuplexChallenger, bits: number): number {
  const runner = activeKernelRunner();
  const job = runner !== null && bits >= POOL_GRIND_BITS ? t.grindTemplate() : null;
  if (runner === null || job === null) return t.grind(bits);
  const w = runner.grind(job.template, job.lane, bits);
  if (!t.checkWitness(bits, w))
    throw new PcsError("PCS_WORKER_CRASHED", "the pool's grinding witness does not check on the transcript");
  return w;
}

/** Options of `whirCommit`. */
export interface WhirCommitOptions {
  /** The parameter set (default `"cb100-r4-s3-l24-f6"`). */
  readonly set?: WhirSetId;
  /** 1 (default) when `evaluations` holds base-field values, 4 when it holds interleaved extension values. */
  readonly width?: CommittedWidth;
  /** Soundness tests only: changes the first codeword's rows (in place) before they are hashed, committing to a word that is not the polynomial's codeword. */
  readonly corruptCodeword?: (rows: Uint32Array) => void;
  /**
   * The pool that hashes the codeword's Merkle tree (`createPcsPool`, src/pcs-workers); `null`:
   * this thread only; absent: the default pool, if one is installed (src/pcs/parallel.ts). The
   * commitment is the same bytes whichever is used.
   */
  readonly workers?: PcsMerkleWorkers | null;
}

/** Options of `whirOpenOn` / `whirOpen`. */
export interface WhirOpenOptions {
  /** The pool that hashes the Merkle trees of the later rounds' codewords, as `WhirCommitOptions.workers`; the proof is the same bytes whichever is used. */
  readonly workers?: PcsMerkleWorkers | null;
}

/** The length of `evaluations` (2^m values of `width` words, m within the set's limit): m. */
function checkShape(evaluations: Uint32Array, width: CommittedWidth, set: ReturnType<typeof whirParameterSet>): number {
  if (!(evaluations instanceof Uint32Array))
    throw new PcsError("PCS_BAD_POLYNOMIAL", "evaluations must be a Uint32Array of canonical field elements");
  const count = evaluations.length / width;
  const m = Math.log2(count);
  if (!Number.isInteger(count) || !Number.isInteger(m) || m < 1) {
    throw new PcsError(
      "PCS_BAD_POLYNOMIAL",
      `a multilinear polynomial of m ≥ 1 variables has 2^m evaluations (× ${width} words); got ${evaluations.length} words`,
      { length: evaluations.length },
    );
  }
  whirSchedule(set, m); // PCS_TOO_LARGE before the values are read
  return m;
}

/** `PCS_BAD_POLYNOMIAL` for the first non-canonical value of `evaluations`, read on its working copy `working` (a SIMD scan on the kernels' backend). */
function checkCanonical(evaluations: Uint32Array, working: Uint32Array): void {
  const i = pcsFirstNoncanonical(working);
  if (i >= 0)
    throw new PcsError(
      "PCS_BAD_POLYNOMIAL",
      `evaluations[${i}] = ${evaluations[i]} is not a canonical field element (< p = ${P})`,
      { index: i },
    );
}

/**
 * Commits to the multilinear polynomial whose hypercube evaluations are `evaluations`
 * (index bit j = variable j), on transcript `t`: absorbs the commitment (§6.1), draws the
 * out-of-domain points and absorbs their answers.
 * @throws PcsError `PCS_BAD_POLYNOMIAL` (length not 2^m·width, a non-canonical value), `PCS_TOO_LARGE` (m above the set's limit, before any value is read), `PCS_UNKNOWN_SET`;
 *   `PCS_BAD_OPTION` (a `workers` option that is not a pool), `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED` (from the pool).
 */
export function whirCommitOn(
  t: DuplexChallenger,
  evaluations: Uint32Array,
  options: WhirCommitOptions = {},
): WhirProverState {
  const workers = resolvePcsWorkers(options.workers);
  const width = options.width ?? 1;
  if (width !== 1 && width !== 4)
    throw new PcsError("PCS_BAD_POLYNOMIAL", `width must be 1 or 4, got ${String(width)}`);
  const set = whirParameterSet(options.set ?? DEFAULT_WHIR_SET);
  const m = phase("input", () => checkShape(evaluations, width, set));
  return withPcsWorkers(workers, () => commitCore(t, evaluations, width, set, m, options, workers));
}

function commitCore(
  t: DuplexChallenger,
  evaluations: Uint32Array,
  width: CommittedWidth,
  set: ReturnType<typeof whirParameterSet>,
  m: number,
  options: WhirCommitOptions,
  workers: PcsMerkleWorkers | null,
): WhirProverState {
  const schedule = whirSchedule(set, m);
  const first = schedule.rounds[0]!;
  const k = first.foldingFactor;
  // The coefficients as a working table: the Möbius transform, the NTT's input and the Horner evaluations read it in place.
  const workingCoefficients = phase("input", () => pcsResident(evaluations));
  // The state's plain copies come from this thread's recycled arrays and go back with `releaseWhirState`.
  const plain: { coefficients?: Uint32Array; evaluations?: Uint32Array } = {};
  let oodAnswers: Ext[];
  let codeword: Uint32Array;
  let tree: MerkleTree;
  try {
    phase("input", () => checkCanonical(evaluations, workingCoefficients));
    phase("encode", () => pcsMobius(workingCoefficients, width));
    ({ codeword, tree } = commitCodeword(
      workingCoefficients,
      width,
      first.logDomain,
      k,
      first.logRows,
      options,
      workers,
      set.leafWidth,
      () => {
        plain.coefficients = phase("input", () => takeCopyOf(workingCoefficients));
        plain.evaluations = phase("input", () => takeCopyOf(evaluations));
      },
    ));
    const oodPoints = phase("transcript", () => {
      absorbCommitment(t, set, m, width, tree.root);
      return drawOodPoints(t, schedule.initialOodSamples);
    });
    oodAnswers = phase("evaluate", () =>
      oodPoints.map((z) => (width === 1 ? pcsHornerBase(workingCoefficients, z) : pcsHorner(workingCoefficients, z))),
    );
    phase("transcript", () => absorbExts(t, oodAnswers));
    const commitment: WhirCommitment = { set: set.id, numVariables: m, width, root: tree.root.slice(), oodAnswers };
    const { coefficients, evaluations: copied } = plain as Required<typeof plain>;
    return { commitment, schedule, oodPoints, evaluations: copied, coefficients, codeword, tree };
  } finally {
    pcsRelease(workingCoefficients);
  }
}

/**
 * The first codeword (natural order, a plain array) and its Merkle tree; `corruptCodeword` changes
 * the rows before they are hashed. The plain copy of the codeword, and `copies` before it, run on
 * this thread while the pool's workers hash the tree's leaves (after the tree on one thread).
 */
function commitCodeword(
  coefficients: Uint32Array,
  width: CommittedWidth,
  logDomain: number,
  k: number,
  logRows: number,
  options: WhirCommitOptions,
  workers: PcsMerkleWorkers | null,
  leafWidth: LeafWidth,
  copies: () => void,
): { codeword: Uint32Array; tree: MerkleTree } {
  const working = phase("encode", () => pcsCodeword(coefficients, width, logDomain));
  try {
    if (options.corruptCodeword) {
      copies();
      const rows = rowsOfCodeword(working, width, logDomain, k);
      options.corruptCodeword(rows);
      const tree = phase("merkle", () => buildMerkleTree(rows, (1 << k) * width, logRows, leafWidth));
      return { codeword: codewordOfRows(rows, width, logDomain, k), tree };
    }
    const plain: { codeword?: Uint32Array } = {};
    const copy = (): void => {
      copies();
      plain.codeword = phase("input", () => takeCopyOf(working));
    };
    const tree = phase("merkle", () => merkleOn(workers, working, width, logDomain, k, leafWidth, copy));
    return { codeword: plain.codeword!, tree };
  } finally {
    pcsRelease(working);
  }
}

/** Prover states whose copies went back to the recycled arrays. */
const released = new WeakSet<WhirProverState>();

/**
 * Gives the plain copies of a prover state (the evaluations, the coefficients and the first
 * codeword: (2 + 2^(log 1/ρ₀))·2^m·width words, 48 MiB for 2^21 base-field values at rate 1/4) back
 * to this thread's recycled arrays once its openings are encoded, so that the next commitment
 * reuses their pages (src/memory/recycled-words.ts) instead of faulting in fresh ones. The state
 * cannot be opened afterwards (`PCS_ALREADY_OPENED`) and its arrays must not be read. Idempotent.
 * @example
 *   const state = whirCommitOn(t, f);
 *   const bytes = encodeWhirProof(whirOpenOn(t, state, claims));
 *   releaseWhirState(state);
 */
export function releaseWhirState(state: WhirProverState): void {
  if (released.has(state)) return;
  released.add(state);
  giveBackWords([state.evaluations, state.coefficients, state.codeword]);
}

/**
 * Opens the commitment of `state` at every claim in one proof, continuing transcript `t` right
 * after the commitment (§6.2–7). The claims' values must be the polynomial's; a wrong value gives
 * a proof that does not verify.
 * @throws PcsError `PCS_BAD_CLAIM` for no claim at all, a point without m coordinates, or a coordinate or value that is not 4 canonical field elements;
 *   `PCS_BAD_OPTION`, `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED` (the `workers` option, as in `whirCommitOn`);
 *   `PCS_ALREADY_OPENED` for a state given to `releaseWhirState`.
 */
export function whirOpenOn(
  t: DuplexChallenger,
  state: WhirProverState,
  claims: readonly WhirAnyClaim[],
  adversary: WhirAdversary = {},
  options: WhirOpenOptions = {},
): WhirProof {
  if (released.has(state))
    throw new PcsError("PCS_ALREADY_OPENED", "this prover state was released (releaseWhirState): commit again to open");
  const { schedule } = state;
  const width0 = state.commitment.width;
  const first = schedule.rounds[0]!;
  const { rounds, finalSumcheck } = openCore(
    t,
    {
      schedule,
      oodPoints: state.oodPoints,
      evaluations: state.evaluations,
      coefficients: state.coefficients,
      width: width0,
      tree: state.tree,
      firstRows: (indices) => gatherRows(state.codeword, width0, first.logDomain, first.foldingFactor, indices),
    },
    claims,
    adversary,
    options,
  );
  return { set: schedule.set.id, numVariables: schedule.numVariables, width: width0, rounds, finalSumcheck };
}

/**
 * What the opening core reads of a commitment: the schedule, the commitment's out-of-domain
 * points, the committed polynomial (evaluations and coefficients, `width` words per value), the
 * first Merkle tree and how the first iteration's opened rows are gathered. The plain opening
 * gathers them from its codeword; the hiding opening (docs/pcs.md §12) sends F′'s and G′'s rows.
 */
export interface OpenCoreInput {
  readonly schedule: WhirSchedule;
  readonly oodPoints: readonly Ext[];
  readonly evaluations: Uint32Array;
  readonly coefficients: Uint32Array;
  readonly width: CommittedWidth;
  /**
   * Width 4 only: `evaluations` and `coefficients` are working tables of this thread's backend,
   * which the opening takes over (reads in place and releases) instead of copying.
   */
  readonly resident?: boolean;
  readonly tree: MerkleTree;
  /** The words of the first iteration's rows at `indices` (distinct, ascending), as the proof carries them. */
  readonly firstRows: (indices: readonly number[]) => Uint32Array;
}

/** The iterations of an opening (§6.2 steps 1–6) on transcript `t`; see `whirOpenOn`. */
export function openCore(
  t: DuplexChallenger,
  input: OpenCoreInput,
  claims: readonly WhirAnyClaim[],
  adversary: WhirAdversary = {},
  options: WhirOpenOptions = {},
): { rounds: WhirRoundProof[]; finalSumcheck: [Ext, Ext][] } {
  const workers = resolvePcsWorkers(options.workers);
  const m = input.schedule.numVariables;
  const problem = phase("input", () => claimsProblem(claims, m));
  if (problem !== null) throw new PcsError("PCS_BAD_CLAIM", problem);
  return withPcsWorkers(workers, () => openIterations(t, input, claims, adversary, workers));
}

function openIterations(
  t: DuplexChallenger,
  input: OpenCoreInput,
  claims: readonly WhirAnyClaim[],
  adversary: WhirAdversary,
  workers: PcsMerkleWorkers | null,
): { rounds: WhirRoundProof[]; finalSumcheck: [Ext, Ext][] } {
  const { schedule } = input;
  const m = schedule.numVariables;
  const gamma = phase("transcript", () => {
    absorbClaims(t, claims);
    return t.sampleExt();
  });
  const initial = schedule.initialOodSamples;
  const coeffs = extPowers(gamma, initial + claims.length);
  const width0 = input.width;
  // The working tables (f, w, c and the codewords of later iterations), released at the end.
  const tables = new Set<Uint32Array>();
  const take = (x: Uint32Array): Uint32Array => (tables.add(x), x);
  const drop = (x: Uint32Array): void => {
    tables.delete(x);
    pcsRelease(x);
  };
  try {
    let w = phase("weights", () => {
      // The eq tables of the out-of-domain points and of the point claims in one pass (written,
      // no zeros to add them to), then the bound blocks' weights added.
      const points: (readonly Ext[])[] = [];
      const pointCoeffs: Ext[] = [];
      input.oodPoints.forEach((z, j) => {
        points.push(powerPoint(z, m));
        pointCoeffs.push(coeffs[j]!);
      });
      const blocks = claims.map(claimBlocks);
      claims.forEach((c, j) => {
        if (blocks[j] === null) {
          points.push((c as WhirClaim).point);
          pointCoeffs.push(coeffs[initial + j]!);
        }
      });
      const w0 = take(points.length > 0 ? pcsEqMany(points, pointCoeffs) : pcsZeros(4 << m));
      blocks.forEach((list, j) => {
        for (const b of list ?? []) addBlockWeights(w0, b.offset, laneWeights(b), coeffs[initial + j]!);
      });
      return w0;
    });
    // Base-field values stay one word each until their first fold, which lifts them (no lifted copy).
    const owned = width0 === 4 && input.resident === true;
    let f = phase("input", () => take(owned ? input.evaluations : pcsResident(input.evaluations)));
    let c = phase("input", () => take(owned ? input.coefficients : pcsResident(input.coefficients)));
    let fBase = width0 === 1;
    let cBase = width0 === 1;
    /** The coefficients as interleaved extension values (lifted if they were never folded). */
    const extCoefficients = (): Uint32Array => {
      if (cBase) {
        const lifted = take(pcsLift(c));
        drop(c);
        c = lifted;
        cBase = false;
      }
      return c;
    };
    const foldAll = (alpha: Ext, withCoefficients: boolean): void => {
      const nf = take(fBase ? pcsFoldBase(f, alpha, "evaluations") : pcsFold(f, alpha, "evaluations"));
      drop(f);
      f = nf;
      fBase = false;
      const nw = take(pcsFold(w, alpha, "evaluations"));
      drop(w);
      w = nw;
      if (withCoefficients) {
        const nc = take(cBase ? pcsFoldBase(c, alpha, "coefficients") : pcsFold(c, alpha, "coefficients"));
        drop(c);
        c = nc;
        cBase = false;
      }
    };
    const roundOf = (): [Ext, Ext] => (fBase ? pcsRoundBase(f, w) : pcsRound(f, w));
    let tree = input.tree;
    // The codeword of iterations after the first (the first's rows come from `input.firstRows`).
    let codeword: Uint32Array | null = null;
    const rounds: WhirRoundProof[] = [];
    let finalCoefficients: Uint32Array | null = null;
    schedule.rounds.forEach((round, i) => {
      const last = i === schedule.rounds.length - 1;
      const sumcheck: [Ext, Ext][] = [];
      const foldWitnesses: number[] = [];
      for (let s = 0; s < round.foldingFactor; s++) {
        const honest = phase("sumcheck", roundOf);
        const [h0, h2] = adversary.roundPolynomial ? adversary.roundPolynomial(i, s, honest) : honest;
        phase("transcript", () => {
          t.observeExt(h0);
          t.observeExt(h2);
        });
        sumcheck.push([h0, h2]);
        if (round.foldPowBits > 0)
          foldWitnesses.push(
            grindOrReplace(
              t,
              round.foldPowBits,
              adversary.witness && ((w, tc) => adversary.witness!("fold", i, s, w, tc)),
            ),
          );
        const alpha = phase("transcript", () => t.sampleExt());
        phase("fold", () => foldAll(alpha, true));
      }
      let nextRoot: Uint32Array | null = null;
      let nextTree: MerkleTree | null = null;
      let nextCodeword: Uint32Array | null = null;
      let oodPoints: Ext[] = [];
      let oodAnswers: Ext[] = [];
      if (!last) {
        const next = schedule.rounds[i + 1]!;
        const cw = take(phase("encode", () => pcsCodeword(extCoefficients(), 4, next.logDomain)));
        nextCodeword = cw;
        nextTree = phase("merkle", () =>
          merkleOn(workers, cw, 4, next.logDomain, next.foldingFactor, schedule.set.leafWidth),
        );
        const root = nextTree.root.slice();
        nextRoot = root;
        oodPoints = phase("transcript", () => {
          t.observeDigest(root);
          return drawOodPoints(t, round.nextOodSamples);
        });
        const cExt = extCoefficients();
        oodAnswers = phase("evaluate", () => oodPoints.map((z) => pcsHorner(cExt, z)));
        if (adversary.oodAnswers) oodAnswers = adversary.oodAnswers(i, oodAnswers);
        const answers = oodAnswers;
        phase("transcript", () => absorbExts(t, answers));
      } else {
        const final = phase("input", () => extCoefficients().slice());
        finalCoefficients = adversary.finalCoefficients ? adversary.finalCoefficients(final) : final;
        const sent = finalCoefficients;
        phase("transcript", () => t.observeMany(sent));
      }
      const queryWitness =
        round.queryPowBits > 0 && adversary.omitQueryWitness?.(i) !== true
          ? grindOrReplace(
              t,
              round.queryPowBits,
              adversary.witness && ((w, tc) => adversary.witness!("query", i, 0, w, tc)),
            )
          : null;
      const indices = phase("transcript", () => drawQueries(t, round.queries, round.logRows));
      const cw = codeword;
      const opened = phase("queries", () =>
        cw === null ? input.firstRows(indices) : gatherRows(cw, 4, round.logDomain, round.foldingFactor, indices),
      );
      adversary.rows?.(i, opened);
      const openedTree = tree;
      const siblings = phase("queries", () => openMultiproof(openedTree, indices));
      adversary.siblings?.(i, siblings);
      rounds.push({
        sumcheck,
        foldWitnesses,
        nextRoot,
        nextOodAnswers: oodAnswers,
        finalCoefficients: last ? finalCoefficients : null,
        queryWitness,
        rowCount: indices.length,
        rows: opened,
        siblings,
      });
      if (!last) {
        const mNext = round.numVariables - round.foldingFactor;
        const g = phase("transcript", () => t.sampleExt());
        const weights = extPowers(g, 1 + oodPoints.length + indices.length);
        const wNow = w;
        phase("weights", () => {
          oodPoints.forEach((z, j) => pcsEqAdd(wNow, powerPoint(z, mNext), weights[1 + j]!));
          const omega = rootOfUnity(round.logDomain);
          const points = indices.map((idx) => powerPointBase(pow(omega, idx << round.foldingFactor), mNext));
          pcsEqAddBaseMany(wNow, points, weights.slice(1 + oodPoints.length));
        });
        if (codeword !== null) drop(codeword);
        tree = nextTree!;
        codeword = nextCodeword!;
      }
    });
    const finalSumcheck: [Ext, Ext][] = [];
    for (let s = 0; s < schedule.finalVariables; s++) {
      const honest = phase("sumcheck", roundOf);
      const [h0, h2] = adversary.roundPolynomial
        ? adversary.roundPolynomial(schedule.rounds.length, s, honest)
        : honest;
      const alpha = phase("transcript", () => {
        t.observeExt(h0);
        t.observeExt(h2);
        return t.sampleExt();
      });
      finalSumcheck.push([h0, h2]);
      phase("fold", () => foldAll(alpha, false));
    }
    return { rounds, finalSumcheck };
  } finally {
    for (const x of tables) pcsRelease(x);
  }
}
