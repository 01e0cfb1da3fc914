/**
 * The hiding commitment's parameters and soundness (docs/pcs.md §12.2, §12.7, §12.10): for a set,
 * a vector f of 2^m values and a layout, the committed polynomial is f′ = f + E·τ, where τ carries
 * t = 2^(k_0)·q_0 random coefficients (q_0 the first iteration's queries, 2^(k_0) its row length)
 * and E is the indicator of the top 2^j values of f′'s n variables: in the layout
 * "extra-variable" n = m + 1 and E = Y, the new top variable (j = m); in the layout "top-block"
 * n = m and j = ⌈log2 t⌉, the top 2^j values of f itself, which no claim may weigh. f′ is opened
 * with the set's schedule at n; the combination h = ρ·f′ + g′ adds the batching term of two
 * committed functions, paid for by grinding before ρ where it falls below λ.
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
import type { WhirHidingLayout } from "./types.js";
import { EXTENSION_FIELD_BITS, listSizeBits, proximityGapsBits } from "./security-terms.js";

/** The layouts, in width-code order (5, 6). */
export const WHIR_HIDING_LAYOUTS: readonly WhirHidingLayout[] = ["extra-variable", "top-block"];

/** The width code a layout's commitment and proof carry (docs/pcs.md §12.5): 5 or 6. */
export function hidingWidthCode(layout: WhirHidingLayout): number {
  return layout === "extra-variable" ? 5 : 6;
}

/** The hiding schedule of a set for a vector of 2^m values (docs/pcs.md §12.2, §12.10). */
export interface WhirHidingSchedule {
  readonly set: WhirParameterSet;
  readonly layout: WhirHidingLayout;
  /** Variables m of the vector f the claims are about. */
  readonly numVariables: number;
  /** Variables n of the committed f′ and g′: m + 1 ("extra-variable") or m ("top-block"). */
  readonly committedVariables: number;
  /** j: τ's values lie in the top 2^j of f′'s 2^n values (m, the Y = 1 half, or ⌈log2 t⌉). */
  readonly maskBlockVariables: number;
  /** The set's schedule at n variables. */
  readonly schedule: WhirSchedule;
  /** t = 2^(k_0)·q_0: τ's random multilinear coefficients (at most 2^j). */
  readonly maskCoefficients: number;
  /** Grinding bits before ρ (docs/pcs.md §12.7, the batching term). */
  readonly batchPowBits: number;
}

/** The batching term's bits before grinding: min(proximity gaps of two functions, ℓ/|K| for the claims), at the n committed variables. */
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

function bitsFor(n: number): number {
  let b = 0;
  while (2 ** b < n) b++;
  return b;
}

/** How many variables a layout's f′ has beyond f's m: 1 ("extra-variable", the new Y) or 0 ("top-block"). */
export function hidingExtraVariables(layout: WhirHidingLayout): number {
  return layout === "extra-variable" ? 1 : 0;
}

function committedOf(layout: WhirHidingLayout, m: number): number {
  return m + hidingExtraVariables(layout);
}

/** j, τ's block being the top 2^j of f′'s values: the Y = 1 half (j = m), or the least power of two holding t. */
function maskBlockOf(layout: WhirHidingLayout, m: number, t: number): number {
  return layout === "extra-variable" ? m : bitsFor(t);
}

/** Whether τ's t coefficients fit: t ≤ 2^j, the block at most f′'s upper half (j ≤ n − 1). */
function fits(layout: WhirHidingLayout, m: number, t: number): boolean {
  const j = maskBlockOf(layout, m, t);
  return t <= 2 ** j && j <= committedOf(layout, m) - 1;
}

function checkLayout(layout: unknown): WhirHidingLayout {
  if (layout !== "extra-variable" && layout !== "top-block")
    throw new PcsError("PCS_BAD_OPTION", `layout must be "extra-variable" or "top-block", got ${String(layout)}`);
  return layout;
}

/**
 * The least m at which `set` can hide a vector of 2^m values in `layout` (default
 * "extra-variable"): t = 2^(k_0)·q_0 of the schedule at n fits below 2^m ("extra-variable", n =
 * m + 1) or in f's upper half ("top-block", n = m). Takes the set or its id.
 * @throws PcsError `PCS_UNKNOWN_SET` for an id that is not an offered set; `PCS_BAD_OPTION` for another layout.
 * @example minHidingVariables("cb100-r4") // 11, as minHidingVariables(whirParameterSet("cb100-r4"))
 */
export function minHidingVariables(
  which: WhirParameterSet | WhirSetId,
  layout: WhirHidingLayout = "extra-variable",
): number {
  const set = typeof which === "string" ? whirParameterSet(which) : which;
  checkLayout(layout);
  for (let m = 1; committedOf(layout, m) <= maxVariables(set); m++)
    if (fits(layout, m, maskCount(whirSchedule(set, committedOf(layout, m))))) return m;
  return maxVariables(set); // never reached by an offered set
}

const cache = new Map<string, WhirHidingSchedule>();

/**
 * The hiding schedule of `set` for a vector of 2^m values in `layout` (default "extra-variable";
 * docs/pcs.md §12.2, §12.10).
 * @throws PcsError `PCS_TOO_SMALL_TO_HIDE` when t = 2^(k_0)·q_0 does not fit (m below `minHidingVariables(set, layout)`);
 *   `PCS_TOO_LARGE` when n is above the set's limit or a phase would grind more than `MAX_POW_BITS`;
 *   `PCS_BAD_OPTION` for another layout.
 * @example whirHidingSchedule(whirParameterSet("cb100-r4"), 16).maskCoefficients // 1408
 * @example whirHidingSchedule(whirParameterSet("cb100-r4"), 16, "top-block").maskBlockVariables // 11
 */
export function whirHidingSchedule(
  set: WhirParameterSet,
  m: number,
  layout: WhirHidingLayout = "extra-variable",
): WhirHidingSchedule {
  checkLayout(layout);
  const key = `${set.id}/${m}/${layout}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const n = committedOf(layout, m);
  if (!Number.isInteger(m) || m < 1 || n > maxVariables(set))
    throw new PcsError(
      "PCS_TOO_LARGE",
      `set ${set.id} hides vectors of up to ${maxVariables(set) - hidingExtraVariables(layout)} variables in the ${layout} layout, got ${m}`,
      { set: set.id, numVariables: m },
    );
  const schedule = whirSchedule(set, n);
  const t = maskCount(schedule);
  if (!fits(layout, m, t))
    throw new PcsError(
      "PCS_TOO_SMALL_TO_HIDE",
      `set ${set.id} opens up to ${t} values of f′'s codeword at ${n} variables, more than τ can mask in the ${layout} layout of ${m} variables; ` +
        `hide at least ${minHidingVariables(set, layout)} variables (pad f with zeros)`,
      { set: set.id, numVariables: m, maskCoefficients: t },
    );
  const j = maskBlockOf(layout, m, t);
  const first = schedule.rounds[0]!;
  const bits = batchErrorBits(set.regime, n, first.logInvRate, first.logEta);
  const batchPowBits = Math.max(0, Math.ceil(set.securityBits - bits - 1e-9));
  if (batchPowBits > MAX_POW_BITS)
    throw new PcsError("PCS_TOO_LARGE", `set ${set.id} at ${m} hidden variables would grind ${batchPowBits} bits`, {
      set: set.id,
      numVariables: m,
    });
  const out: WhirHidingSchedule = {
    set,
    layout,
    numVariables: m,
    committedVariables: n,
    maskBlockVariables: j,
    schedule,
    maskCoefficients: t,
    batchPowBits,
  };
  cache.set(key, out);
  return out;
}

/** The soundness of a hiding opening (docs/pcs.md §12.7) in the set's own regime. */
export interface WhirHidingSecurityReport {
  readonly set: WhirParameterSet["id"];
  readonly layout: WhirHidingLayout;
  readonly numVariables: number;
  /** Variables n of the committed f′ and g′. */
  readonly committedVariables: number;
  readonly maskCoefficients: number;
  readonly batchPowBits: number;
  /** The batching term after grinding, in bits. */
  readonly batchBits: number;
  /** pcs §5 at n variables (`whirSecurity(set, n).bits`). */
  readonly whirBits: number;
  /** min(batchBits, whirBits), floored to a tenth of a bit. */
  readonly bits: number;
  readonly weakest: string;
}

/**
 * ε_WHIR′ of a hiding opening in bits: pcs §5 at the n committed variables and the batching term
 * of the two committed functions f′ and g′ (docs/pcs.md §12.7).
 * @throws PcsError as `whirHidingSchedule`.
 * @example whirHidingSecurity(whirParameterSet("cb100-r4"), 16).bits // ≥ 100
 */
export function whirHidingSecurity(
  set: WhirParameterSet,
  m: number,
  layout: WhirHidingLayout = "extra-variable",
): WhirHidingSecurityReport {
  const h = whirHidingSchedule(set, m, layout);
  const n = h.committedVariables;
  const first = h.schedule.rounds[0]!;
  const batchBits = batchErrorBits(set.regime, n, first.logInvRate, first.logEta) + h.batchPowBits;
  const whir = whirSecurity(set, n);
  const floorTenth = (x: number): number => Math.floor(x * 10 + 1e-9) / 10;
  const weakest = batchBits < whir.bits ? "batch" : whir.regimes[set.regime].weakest;
  return {
    set: set.id,
    layout,
    numVariables: m,
    committedVariables: n,
    maskCoefficients: h.maskCoefficients,
    batchPowBits: h.batchPowBits,
    batchBits: floorTenth(batchBits),
    whirBits: whir.bits,
    bits: floorTenth(Math.min(batchBits, whir.bits)),
    weakest,
  };
}
