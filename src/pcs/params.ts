/**
 * WHIR parameter sets and the round schedule they give for a polynomial of m variables
 * (docs/pcs.md §2–3). A set fixes the soundness regime its counts are computed in, the target
 * security, the starting rate, the folding factor and the query proof-of-work budget; the
 * schedule (rounds, queries, out-of-domain samples, grinding bits) follows from the set and m by
 * the formulas of src/pcs/security.ts, so a proof names only its set and m.
 */
import { TWO_ADICITY } from "../field/koalabear.js";
import { PcsError } from "./errors.js";
import {
  foldErrorBits,
  oodErrorBits,
  queryBitsPerSample,
  combinationErrorBits,
  roundLogEta,
} from "./security-terms.js";

import type { SoundnessRegime } from "./regime.js";

export type { SoundnessRegime } from "./regime.js";

/** The parameter sets a proof may name (docs/pcs.md §2). `cb` = capacity conjecture, `ud` = unique decoding; `r4` = rate 1/4, `r2` = rate 1/2; `s3` (`s4`) = each later codeword's domain 2^3 (2^4) times smaller than the one before (2 times without the suffix); `l24` = Merkle leaves hashed with the Poseidon2-24 sponge at rate 16 (the Poseidon2-16 sponge at rate 8 without the suffix); `f6` = the first iteration folds 6 variables, onto a next domain 2^4 times smaller, where that saves an iteration (5 without the suffix); `q12` = a query grinding budget of 12 bits (16 without the suffix). */
export type WhirSetId =
  | "cb90-r4"
  | "cb90-r2"
  | "cb100-r4"
  | "cb100-r2"
  | "ud100-r4"
  | "ud100-r2"
  | "cb100-r4-s3"
  | "ud100-r4-s3"
  | "cb100-r2-s3"
  | "ud100-r2-s3"
  | "cb100-r4-s3-l24"
  | "ud100-r4-s3-l24"
  | "cb100-r2-s3-l24"
  | "ud100-r2-s3-l24"
  | "cb100-r4-s3-l24-f6"
  | "ud100-r4-s3-l24-f6"
  | "ud100-r4-s4-l24-f6"
  | "ud100-r4-s4-l24-f6-q12";

/** One WHIR parameter set (docs/pcs.md §2). */
export interface WhirParameterSet {
  /** The set's name, e.g. `"cb100-r4"`. */
  readonly id: WhirSetId;
  /** The u32 that names the set in commitment and proof bytes. */
  readonly code: number;
  /** The regime its counts are computed in. */
  readonly regime: SoundnessRegime;
  /** Target security λ in bits, in its own regime. */
  readonly securityBits: number;
  /** log2(1/ρ) of the first codeword. */
  readonly logInvRate: number;
  /** Variables folded per WHIR iteration (k) after the first. */
  readonly foldingFactor: number;
  /** The largest k_0 the first iteration may fold: k_0 is the smallest factor in [foldingFactor, firstFoldingMax] that gives the fewest iterations, and the first iteration's domain shrinks by 2^(s + k_0 − k), so f_1 has the rate it has with k_0 = k (docs/pcs.md §3); 6 in the `-f6` sets, equal to foldingFactor in the others. */
  readonly firstFoldingMax: number;
  /** Grinding bits the query phase may use, so that queries are counted for λ − budget bits. */
  readonly queryPowBudget: number;
  /** Grinding bits a folding challenge may use before η is raised (capacity regime, docs/pcs.md §5.2). */
  readonly foldPowBudget: number;
  /** log2(|L_i| / |L_(i+1)|): each later codeword's domain is 2^domainShrink times smaller than the one before (1 in the original sets). */
  readonly domainShrink: number;
  /** Width of the Poseidon2 permutation whose padding-free sponge hashes the Merkle leaves: 16 (rate 8, compat-v1) or 24 (rate 16); inner nodes are always h_node (docs/pcs.md §4.3). */
  readonly leafWidth: LeafWidth;
}

/** The width of a set's leaf sponge permutation (docs/pcs.md §4.3): 16 at rate 8, or 24 at rate 16; capacity 8 either way. */
export type LeafWidth = 16 | 24;

/** A set of this project: folding factor 5 (the first iteration up to `firstFoldingMax`), 16 bits of fold grinding budget and `queryPowBudget` bits of query grinding budget (docs/pcs.md §2). */
function offeredSet(
  id: WhirSetId,
  code: number,
  regime: SoundnessRegime,
  securityBits: number,
  logInvRate: number,
  domainShrink: number,
  leafWidth: LeafWidth = 16,
  firstFoldingMax = 5,
  queryPowBudget = 16,
): WhirParameterSet {
  return {
    id,
    code,
    regime,
    securityBits,
    logInvRate,
    foldingFactor: 5,
    firstFoldingMax,
    queryPowBudget,
    foldPowBudget: 16,
    domainShrink,
    leafWidth,
  };
}

/** id, code, regime, λ, log 1/ρ₀, domain shrink s, leaf sponge width, largest first folding factor, query grinding budget. */
const SETS: readonly WhirParameterSet[] = [
  offeredSet("cb90-r4", 1, "capacity", 90, 2, 1),
  offeredSet("cb90-r2", 2, "capacity", 90, 1, 1),
  offeredSet("cb100-r4", 3, "capacity", 100, 2, 1),
  offeredSet("cb100-r2", 4, "capacity", 100, 1, 1),
  offeredSet("ud100-r4", 5, "unique-decoding", 100, 2, 1),
  offeredSet("ud100-r2", 6, "unique-decoding", 100, 1, 1),
  offeredSet("cb100-r4-s3", 7, "capacity", 100, 2, 3),
  offeredSet("ud100-r4-s3", 8, "unique-decoding", 100, 2, 3),
  offeredSet("cb100-r2-s3", 9, "capacity", 100, 1, 3),
  offeredSet("ud100-r2-s3", 10, "unique-decoding", 100, 1, 3),
  offeredSet("cb100-r4-s3-l24", 11, "capacity", 100, 2, 3, 24),
  offeredSet("ud100-r4-s3-l24", 12, "unique-decoding", 100, 2, 3, 24),
  offeredSet("cb100-r2-s3-l24", 13, "capacity", 100, 1, 3, 24),
  offeredSet("ud100-r2-s3-l24", 14, "unique-decoding", 100, 1, 3, 24),
  offeredSet("cb100-r4-s3-l24-f6", 15, "capacity", 100, 2, 3, 24, 6),
  offeredSet("ud100-r4-s3-l24-f6", 16, "unique-decoding", 100, 2, 3, 24, 6),
  offeredSet("ud100-r4-s4-l24-f6", 17, "unique-decoding", 100, 2, 4, 24, 6),
  offeredSet("ud100-r4-s4-l24-f6-q12", 18, "unique-decoding", 100, 2, 4, 24, 6, 12),
];

/** The set this project's proofs use unless told otherwise: 100 bits under the capacity conjecture, rate 1/4, later domains 8 times smaller, leaves hashed by the Poseidon2-24 sponge, a first fold of 6 variables on a 16 times smaller next domain where that saves an iteration (docs/pcs.md §2.1). */
export const DEFAULT_WHIR_SET: WhirSetId = "cb100-r4-s3-l24-f6";
/** The provable 100-bit set (unique decoding, rate 1/4, later domains 16 times smaller, Poseidon2-24 leaves, a first fold of 6 where that saves an iteration, 12 bits of query grinding; docs/pcs.md §2.2, §2.3): `{ set: PROVABLE_WHIR_SET }`. */
export const PROVABLE_WHIR_SET: WhirSetId = "ud100-r4-s4-l24-f6-q12";
/** The set of hiding commitments (v3-zk) unless told otherwise: the default's first fold of 5, because a larger first fold opens more values of f′ per query than the small hiding vectors' masks cover (docs/pcs.md §12). */
export const DEFAULT_HIDING_WHIR_SET: WhirSetId = "cb100-r4-s3-l24";
/** The provable set of hiding commitments: `PROVABLE_WHIR_SET` with a first fold of 5, as `DEFAULT_HIDING_WHIR_SET` is the default's. */
export const PROVABLE_HIDING_WHIR_SET: WhirSetId = "ud100-r4-s3-l24";
/** The most variables a final polynomial sent in the clear may have. */
export const FINAL_VARIABLES_MAX = 6;
/** The most grinding bits any phase may ask for; a set and m needing more are refused. */
export const MAX_POW_BITS = 30;

/** Every parameter set, in code order. */
export function whirParameterSets(): readonly WhirParameterSet[] {
  return SETS;
}

/**
 * The set named `id`.
 * @throws PcsError `PCS_UNKNOWN_SET` for a name that is not a set.
 * @example whirParameterSet("cb100-r4").securityBits // 100
 */
export function whirParameterSet(id: string): WhirParameterSet {
  const set = SETS.find((s) => s.id === id);
  if (set === undefined)
    throw new PcsError(
      "PCS_UNKNOWN_SET",
      `unknown WHIR parameter set "${id}"; the sets are ${SETS.map((s) => s.id).join(", ")}`,
      { id },
    );
  return set;
}

/** The set whose u32 code is `code`, or undefined. */
export function whirParameterSetByCode(code: number): WhirParameterSet | undefined {
  return SETS.find((s) => s.code === code);
}

/** One WHIR iteration of a schedule: the sumcheck over k variables of f_i, then the next commitment (or the final polynomial) and the queries to f_i. */
export interface WhirRound {
  /** Variables of f_i (m_i). */
  readonly numVariables: number;
  /** Variables this iteration folds (k_i). */
  readonly foldingFactor: number;
  /** log2(1/ρ_i) of f_i's codeword. */
  readonly logInvRate: number;
  /** log2 η_i: the gap of f_i's proximity parameter δ_i to its regime's bound (0 in unique decoding). */
  readonly logEta: number;
  /** log2 |L_i|: the codeword of f_i has 2^logDomain points. */
  readonly logDomain: number;
  /** log2 of f_i's Merkle rows (each row holds 2^k_i points): logDomain − k_i. */
  readonly logRows: number;
  /** Grinding bits before each of the k_i folding challenges. */
  readonly foldPowBits: number;
  /** Out-of-domain samples of the next committed function f_{i+1} (0 in the last iteration). */
  readonly nextOodSamples: number;
  /** Query indices drawn into f_i's rows. */
  readonly queries: number;
  /** Grinding bits before the query indices. */
  readonly queryPowBits: number;
}

/** The schedule of a set for m variables (docs/pcs.md §3). */
export interface WhirSchedule {
  readonly set: WhirParameterSet;
  /** Variables of the committed polynomial. */
  readonly numVariables: number;
  /** Out-of-domain samples of the commitment itself. */
  readonly initialOodSamples: number;
  readonly rounds: readonly WhirRound[];
  /** Variables of the final polynomial, sent as its 2^finalVariables coefficients. */
  readonly finalVariables: number;
}

/** The most variables a set can commit to: the first codeword (2^(m + log 1/ρ) points) must fit KoalaBear's subgroup of order 2^24. */
export function maxVariables(set: WhirParameterSet): number {
  return TWO_ADICITY - set.logInvRate;
}

/** WHIR iterations of m variables when the first folds k0 and every later one `k`, until at most `FINAL_VARIABLES_MAX` remain. */
function iterationCount(m: number, k0: number, k: number): number {
  let count = 1;
  for (let mi = m - Math.min(k0, m); mi > FINAL_VARIABLES_MAX; mi -= Math.min(k, mi)) count++;
  return count;
}

/**
 * The first iteration's folding factor k_0 for m variables (docs/pcs.md §3): the smallest k in
 * [foldingFactor, firstFoldingMax] whose schedule has the fewest iterations, so a larger first
 * fold is used only where it saves a whole iteration.
 * @example firstFoldingFactor(whirParameterSet("cb100-r4-s3-l24-f6"), 22) // 6 (3 iterations instead of 4)
 */
export function firstFoldingFactor(set: WhirParameterSet, m: number): number {
  let best = set.foldingFactor;
  for (let k = set.foldingFactor + 1; k <= set.firstFoldingMax; k++)
    if (iterationCount(m, k, set.foldingFactor) < iterationCount(m, best, set.foldingFactor)) best = k;
  return best;
}

const schedules = new Map<string, WhirSchedule>();

/**
 * The round schedule of `set` for a polynomial of m variables: the folding factors, rates,
 * queries, out-of-domain samples and grinding bits of every iteration (docs/pcs.md §3).
 * @throws PcsError `PCS_TOO_LARGE` when m is not an integer in [1, maxVariables(set)] or a phase would need more than `MAX_POW_BITS` of grinding.
 * @example whirSchedule(whirParameterSet("cb100-r4"), 20).rounds.length // 3
 */
export function whirSchedule(set: WhirParameterSet, m: number): WhirSchedule {
  const key = `${set.id}/${m}`;
  const cached = schedules.get(key);
  if (cached) return cached;
  if (!Number.isInteger(m) || m < 1 || m > maxVariables(set)) {
    throw new PcsError(
      "PCS_TOO_LARGE",
      `set ${set.id} commits to 1..${maxVariables(set)} variables (a codeword of at most 2^${TWO_ADICITY} points at rate 2^-${set.logInvRate}), got ${m}`,
      { set: set.id, numVariables: m },
    );
  }
  const lambda = set.securityBits;
  const regime = set.regime;
  const powBits = (errorBits: number): number => {
    const bits = Math.max(0, Math.ceil(lambda - errorBits - 1e-9));
    if (bits > MAX_POW_BITS) {
      throw new PcsError(
        "PCS_TOO_LARGE",
        `set ${set.id} at ${m} variables would need ${bits} bits of grinding (more than ${MAX_POW_BITS})`,
        { set: set.id, numVariables: m, bits },
      );
    }
    return bits;
  };
  const etaOf = (mi: number, ri: number): number => roundLogEta(regime, mi, ri, lambda, set.foldPowBudget);
  const oodSamples = (mi: number, ri: number): number => {
    if (regime === "unique-decoding") return 0;
    const eta = etaOf(mi, ri);
    for (let t = 1; t < 64; t++) if (oodErrorBits(regime, mi, ri, eta, t) >= lambda) return t;
    throw new PcsError("PCS_TOO_LARGE", `set ${set.id}: no out-of-domain sample count reaches ${lambda} bits`, {
      set: set.id,
    });
  };
  const rounds: WhirRound[] = [];
  const k0 = firstFoldingFactor(set, m);
  let mi = m;
  let ri = set.logInvRate;
  let logDomain = m + set.logInvRate;
  for (;;) {
    const k = Math.min(rounds.length === 0 ? k0 : set.foldingFactor, mi);
    const mNext = mi - k;
    const last = mNext <= FINAL_VARIABLES_MAX;
    // s_0 = s + k_0 − k: the first iteration's extra folds shrink the next domain instead of lowering f_1's rate.
    const shrink = rounds.length === 0 ? set.domainShrink + k0 - set.foldingFactor : set.domainShrink;
    const rNext = ri + k - shrink;
    const eta = etaOf(mi, ri);
    const nextOod = last ? 0 : oodSamples(mNext, rNext);
    const perQuery = queryBitsPerSample(regime, ri, eta);
    const queries = Math.ceil((lambda - set.queryPowBudget) / perQuery - 1e-9);
    const combBits = last
      ? Infinity
      : combinationErrorBits(regime, mNext, rNext, etaOf(mNext, rNext), nextOod + queries);
    rounds.push({
      numVariables: mi,
      foldingFactor: k,
      logInvRate: ri,
      logEta: eta,
      logDomain,
      logRows: logDomain - k,
      foldPowBits: powBits(foldErrorBits(regime, mi, ri, eta)),
      nextOodSamples: nextOod,
      queries,
      queryPowBits: powBits(Math.min(queries * perQuery, combBits)),
    });
    mi = mNext;
    if (last) break;
    ri = rNext;
    logDomain -= shrink;
  }
  const schedule: WhirSchedule = {
    set,
    numVariables: m,
    initialOodSamples: oodSamples(m, set.logInvRate),
    rounds,
    finalVariables: mi,
  };
  schedules.set(key, schedule);
  return schedule;
}
