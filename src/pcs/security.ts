/**
 * The security of a parameter set at m variables, computed from its schedule under each
 * soundness regime (docs/pcs.md §5): the set's counts and grinding bits are fixed by its own
 * regime (src/pcs/params.ts); evaluating them under the others shows what they would give there.
 */
import { whirSchedule, type SoundnessRegime, type WhirParameterSet } from "./params.js";
import {
  EXTENSION_FIELD_BITS,
  FINAL_SUMCHECK_ERROR_BITS,
  merkleBits,
  combinationErrorBits,
  defaultLogEta,
  foldErrorBits,
  oodErrorBits,
  queryBitsPerSample,
} from "./security-terms.js";

/** One term of the round-by-round soundness error, in bits (grinding included). */
export interface WhirSecurityTerm {
  /** e.g. `fold(0)`, `ood(1)`, `query(2)`, `combination(0)`, `final sumcheck`, `merkle`. */
  readonly name: string;
  /** −log2 of the term's error after grinding (+∞ where the regime has no such error). */
  readonly bits: number;
  /** Grinding bits counted in `bits`. */
  readonly powBits: number;
}

/** The bits a schedule reaches in one regime: the weakest of its terms. */
export interface WhirRegimeSecurity {
  readonly regime: SoundnessRegime;
  /** min over the terms, floored to a tenth of a bit. */
  readonly bits: number;
  /** Name of the weakest term. */
  readonly weakest: string;
  readonly terms: readonly WhirSecurityTerm[];
}

/** The security report of a set at m variables (docs/pcs.md §5.3). */
export interface WhirSecurityReport {
  readonly set: WhirParameterSet["id"];
  readonly numVariables: number;
  /** Bits in the set's own regime. */
  readonly bits: number;
  /** log2 |K| (≈ 123.95): the field-size terms' denominator. */
  readonly fieldBits: number;
  /** The largest grinding of any phase, in bits. */
  readonly maxPowBits: number;
  /** log2 of the expected number of permutations all grinding costs the prover. */
  readonly grindingLog2: number;
  readonly regimes: Readonly<Record<SoundnessRegime, WhirRegimeSecurity>>;
}

const REGIMES: readonly SoundnessRegime[] = ["unique-decoding", "johnson-bound", "capacity"];

function floorTenth(x: number): number {
  return x === Infinity ? Infinity : Math.floor(x * 10 + 1e-9) / 10;
}

/**
 * Computes the round-by-round soundness of `set` at m variables in every regime.
 * @throws PcsError `PCS_TOO_LARGE` as `whirSchedule`.
 * @example whirSecurity(whirParameterSet("cb100-r4"), 22).bits // ≥ 100
 */
export function whirSecurity(set: WhirParameterSet, m: number): WhirSecurityReport {
  const schedule = whirSchedule(set, m);
  const regimes = {} as Record<SoundnessRegime, WhirRegimeSecurity>;
  for (const regime of REGIMES) {
    // The set's own regime uses the schedule's η of every round; the others their default η.
    const own = regime === set.regime;
    const etaOf = (i: number, r: number): number =>
      own && i < schedule.rounds.length ? schedule.rounds[i]!.logEta : defaultLogEta(regime, r);
    const terms: WhirSecurityTerm[] = [];
    terms.push({
      name: "ood(0)",
      bits: oodErrorBits(regime, m, set.logInvRate, etaOf(0, set.logInvRate), schedule.initialOodSamples),
      powBits: 0,
    });
    schedule.rounds.forEach((round, i) => {
      const eta = etaOf(i, round.logInvRate);
      terms.push({
        name: `fold(${i})`,
        bits: foldErrorBits(regime, round.numVariables, round.logInvRate, eta) + round.foldPowBits,
        powBits: round.foldPowBits,
      });
      // The next committed function's code, as the schedule derived it (none after the last iteration).
      const following = schedule.rounds[i + 1];
      const next =
        following === undefined
          ? null
          : { m: following.numVariables, r: following.logInvRate, eta: etaOf(i + 1, following.logInvRate) };
      if (next !== null)
        terms.push({
          name: `ood(${i + 1})`,
          bits: oodErrorBits(regime, next.m, next.r, next.eta, round.nextOodSamples),
          powBits: 0,
        });
      terms.push({
        name: `query(${i})`,
        bits: round.queries * queryBitsPerSample(regime, round.logInvRate, eta) + round.queryPowBits,
        powBits: round.queryPowBits,
      });
      if (next !== null) {
        terms.push({
          name: `combination(${i})`,
          bits:
            combinationErrorBits(regime, next.m, next.r, next.eta, round.nextOodSamples + round.queries) +
            round.queryPowBits,
          powBits: round.queryPowBits,
        });
      }
    });
    terms.push({ name: "final sumcheck", bits: FINAL_SUMCHECK_ERROR_BITS, powBits: 0 });
    terms.push({ name: "merkle", bits: merkleBits(set.leafWidth), powBits: 0 });
    let weakest = terms[0]!;
    for (const t of terms) if (t.bits < weakest.bits) weakest = t;
    regimes[regime] = { regime, bits: Math.max(0, floorTenth(weakest.bits)), weakest: weakest.name, terms };
  }
  let maxPow = 0;
  let attempts = 0;
  for (const round of schedule.rounds) {
    maxPow = Math.max(maxPow, round.foldPowBits, round.queryPowBits);
    if (round.foldPowBits > 0) attempts += round.foldingFactor * 2 ** round.foldPowBits;
    if (round.queryPowBits > 0) attempts += 2 ** round.queryPowBits;
  }
  return {
    set: set.id,
    numVariables: m,
    bits: regimes[set.regime].bits,
    fieldBits: floorTenth(EXTENSION_FIELD_BITS),
    maxPowBits: maxPow,
    grindingLog2: attempts === 0 ? 0 : floorTenth(Math.log2(attempts)),
    regimes,
  };
}
