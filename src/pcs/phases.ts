/**
 * An optional timer of the prover's phases, for benchmarks: off unless `withPhaseTimer` runs,
 * when `phase` costs one extra call. Every step of a commitment and of an opening runs inside
 * one of them:
 *
 * | phase | what |
 * |---|---|
 * | `encode` | Möbius transform (evaluations → coefficients), Reed–Solomon encoding (NTT) |
 * | `merkle` | Merkle trees of the codewords' rows |
 * | `grinding` | proof-of-work searches |
 * | `sumcheck` | the sumcheck rounds' [h(0), h(2)] |
 * | `fold` | folding the evaluations, weights and coefficients by a challenge |
 * | `weights` | the weight table: eq tables of the out-of-domain points, the claims and the queries |
 * | `evaluate` | out-of-domain answers (Horner evaluation, with the lift of base-field coefficients) |
 * | `transcript` | absorbing and drawing on the transcript (roots, answers, claims, challenges, queries) |
 * | `input` | checking the committed values, the working copies of the input and the state's plain copies, the lifts that start an opening |
 * | `queries` | the opened rows and their Merkle multiproofs |
 */

/** The phases the prover reports. */
export type PcsPhase =
  | "encode"
  | "merkle"
  | "grinding"
  | "sumcheck"
  | "fold"
  | "weights"
  | "evaluate"
  | "transcript"
  | "input"
  | "queries";

let record: ((name: PcsPhase, ms: number) => void) | null = null;

/** Wall ms of the phases nested in the running one (`phase`), which its own report leaves out. */
let nested = 0;

/**
 * Runs `fn` with every `phase` inside it reported to `onPhase` (name, wall ms); restores the
 * previous timer afterwards. A phase that runs inside another (the state's copy of the codeword
 * while the pool hashes its tree) is reported on its own, and the outer phase without it.
 */
export function withPhaseTimer<T>(onPhase: (name: PcsPhase, ms: number) => void, fn: () => T): T {
  const previous = record;
  record = onPhase;
  try {
    return fn();
  } finally {
    record = previous;
  }
}

/** Runs `fn` as phase `name`: timed when a phase timer is active, else called directly. */
export function phase<T>(name: PcsPhase, fn: () => T): T {
  const r = record;
  if (r === null) return fn();
  const outer = nested;
  nested = 0;
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    const ms = performance.now() - t0;
    r(name, ms - nested);
    nested = outer + ms;
  }
}
