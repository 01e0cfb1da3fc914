/**
 * The hiding commitment's parameters and soundness (docs/pcs.md §12.2, §12.7): for a set and a
 * vector f of 2^m values, the committed polynomial f′(X, Y) = f(X) + Y·τ(X) has m + 1 variables
 * and is opened with the set's schedule at m + 1; τ carries t = 2^(k_0)·q_0 random coefficients
 * (q_0 the first iteration's queries, 2^(k_0) its row length), which must fit below 2^m; the
 * combination h = ρ·f′ + g′ adds the batching term of two committed functions, paid for by
 * grinding before ρ where it falls below λ.
 */
import { PcsError } from "./errors.js";
import {
  MAX_POW_BITS,
  maxVariables,
  whirParameterSet,
  whirSchedule,
  type WhirParameterSet,
  type WhirSchedule,
  type WhirSetId,
} from "./params.js";
import type { SoundnessRegime } from "./regime.js";
import { whirSecurity } from "./security.js";
import { EXTENSION_FIELD_BITS, listSizeBits, proximityGapsBits } from "./security-terms.js";

/** The hiding schedule of a set for a vector of 2^m values (docs/pcs.md §12.2). */
export interface WhirHidingSchedule {
  readonly set: WhirParameterSet;
  /** Variables m of the vector f the claims are about. */
  readonly numVariables: number;
  /** The committed f′ and g′ have m + 1 variables; `schedule` is the set's at m + 1. */
  readonly schedule: WhirSchedule;
  /** t = 2^(k_0)·q_0: τ's random multilinear coefficients (at most 2^m). */
  readonly maskCoefficients: number;
  /** Grinding bits before ρ (docs/pcs.md §12.7, the batching term). */
  readonly batchPowBits: number;
}

/** The batching term's bits before grinding: min(proximity gaps of two functions, ℓ/|K| for the claims), at m + 1 variables. */
export function batchErrorBits(regime: SoundnessRegime, committedVariables: number, r: number, logEta: number): number {
  return Math.min(
    proximityGapsBits(regime, committedVariables, r, logEta),
    EXTENSION_FIELD_BITS - listSizeBits(regime, committedVariables, r, logEta),
  );
}

function maskCount(schedule: WhirSchedule): number {
  const first = schedule.rounds[0]!;
  return Math.min(first.queries, 2 ** first.logRows) << first.foldingFactor;
}

/**
 * The least m at which `set` can hide a vector of 2^m values: t = 2^(k_0)·q_0 of the schedule at
 * m + 1 fits below 2^m. Takes the set or its id.
 * @throws PcsError `PCS_UNKNOWN_SET` for an id that is not an offered set.
 * @example minHidingVariables("cb100-r4") // 11, as minHidingVariables(whirParameterSet("cb100-r4"))
 */
export function minHidingVariables(which: WhirParameterSet | WhirSetId): number {
  const set = typeof which === "string" ? whirParameterSet(which) : which;
  for (let m = 1; m + 1 <= maxVariables(set); m++) if (maskCount(whirSchedule(set, m + 1)) <= 2 ** m) return m;
  return maxVariables(set); // never reached by an offered set
}

const cache = new Map<string, WhirHidingSchedule>();

/**
 * The hiding schedule of `set` for a vector of 2^m values (docs/pcs.md §12.2).
 * @throws PcsError `PCS_TOO_SMALL_TO_HIDE` when t = 2^(k_0)·q_0 exceeds 2^m (m below `minHidingVariables(set)`);
 *   `PCS_TOO_LARGE` when m + 1 is above the set's limit or a phase would grind more than `MAX_POW_BITS`.
 * @example whirHidingSchedule(whirParameterSet("cb100-r4"), 16).maskCoefficients // 1408
 */
export function whirHidingSchedule(set: WhirParameterSet, m: number): WhirHidingSchedule {
  const key = `${set.id}/${m}`;
  const cached = cache.get(key);
  if (cached) return cached;
  if (!Number.isInteger(m) || m < 1 || m + 1 > maxVariables(set))
    throw new PcsError(
      "PCS_TOO_LARGE",
      `set ${set.id} hides vectors of up to ${maxVariables(set) - 1} variables (f′ has one more), got ${m}`,
      { set: set.id, numVariables: m },
    );
  const schedule = whirSchedule(set, m + 1);
  const t = maskCount(schedule);
  if (t > 2 ** m)
    throw new PcsError(
      "PCS_TOO_SMALL_TO_HIDE",
      `set ${set.id} opens up to ${t} values of f′'s codeword at ${m + 1} variables, more than the 2^${m} coefficients τ can mask; ` +
        `hide at least ${minHidingVariables(set)} variables (pad f with zeros)`,
      { set: set.id, numVariables: m, maskCoefficients: t },
    );
  const first = schedule.rounds[0]!;
  const bits = batchErrorBits(set.regime, m + 1, first.logInvRate, first.logEta);
  const batchPowBits = Math.max(0, Math.ceil(set.securityBits - bits - 1e-9));
  if (batchPowBits > MAX_POW_BITS)
    throw new PcsError("PCS_TOO_LARGE", `set ${set.id} at ${m} hidden variables would grind ${batchPowBits} bits`, {
      set: set.id,
      numVariables: m,
    });
  const out: WhirHidingSchedule = { set, numVariables: m, schedule, maskCoefficients: t, batchPowBits };
  cache.set(key, out);
  return out;
}

/** The soundness of a hiding opening (docs/pcs.md §12.7) in the set's own regime. */
export interface WhirHidingSecurityReport {
  readonly set: WhirParameterSet["id"];
  readonly numVariables: number;
  readonly maskCoefficients: number;
  readonly batchPowBits: number;
  /** The batching term after grinding, in bits. */
  readonly batchBits: number;
  /** pcs §5 at m + 1 variables (`whirSecurity(set, m + 1).bits`). */
  readonly whirBits: number;
  /** min(batchBits, whirBits), floored to a tenth of a bit. */
  readonly bits: number;
  readonly weakest: string;
}

/**
 * ε_WHIR′ of a hiding opening in bits: pcs §5 at m + 1 variables and the batching term of the two
 * committed functions f′ and g′ (docs/pcs.md §12.7).
 * @throws PcsError as `whirHidingSchedule`.
 * @example whirHidingSecurity(whirParameterSet("cb100-r4"), 16).bits // ≥ 100
 */
export function whirHidingSecurity(set: WhirParameterSet, m: number): WhirHidingSecurityReport {
  const h = whirHidingSchedule(set, m);
  const first = h.schedule.rounds[0]!;
  const batchBits = batchErrorBits(set.regime, m + 1, first.logInvRate, first.logEta) + h.batchPowBits;
  const whir = whirSecurity(set, m + 1);
  const floorTenth = (x: number): number => Math.floor(x * 10 + 1e-9) / 10;
  const weakest = batchBits < whir.bits ? "batch" : whir.regimes[set.regime].weakest;
  return {
    set: set.id,
    numVariables: m,
    maskCoefficients: h.maskCoefficients,
    batchPowBits: h.batchPowBits,
    batchBits: floorTenth(batchBits),
    whirBits: whir.bits,
    bits: floorTenth(Math.min(batchBits, whir.bits)),
    weakest,
  };
}
