/**
 * An optional timer of the prover's phases (Reed–Solomon encoding, Merkle hashing, grinding,
 * sumcheck, folding), for benchmarks: off unless `withPhaseTimer` runs, when `phase` costs one
 * extra call.
 */

/** The phases the prover reports. */
export type PcsPhase = "encode" | "merkle" | "grinding" | "sumcheck" | "fold";

let record: ((name: PcsPhase, ms: number) => void) | null = null;

/**
 * Runs `fn` with every `phase` inside it reported to `onPhase` (name, wall ms); restores the
 * previous timer afterwards. Phases do not nest.
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
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    r(name, performance.now() - t0);
  }
}
