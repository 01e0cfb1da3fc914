/**
 * Linear maps of the structured linear gate family (docs/profile-v2.md §4): a map acts on one
 * block of 2^laneBits lanes and is applied, unchanged, to every block of a group. Each map has
 * an exact factored program for M·v and Mᵀ·w and a dense form (the reference the tests compare
 * against, written from the matrix definitions, not from the programs).
 *
 * Maps (id, committed in the v2 circuit identity):
 * - 0 `identity` (any laneBits 0..4): M = I.
 * - 1 `poseidon2-external`: M_E = (I4 + J4) ⊗ M4 (compat-v1 §3: M4 on each 4-lane chunk, then the
 *   column sums added); lane = 4·chunk + position. Factored: (I4 ⊗ M4), then sum-and-broadcast
 *   per position, 64 + 48 = 112 terms.
 * - 2 `poseidon2-internal`: M_I = J + diag(V) (compat-v1 §3), symmetric. Factored: broadcast
 *   sum (16 + 16) plus diagonal (16), 48 terms.
 *
 * "Terms" is the number of non-zero entries of the sparse factors of the program; it is what the
 * prover's booking tables and the verifier's table wiring cost per block.
 */
import { P, mul } from "../../field/koalabear.js";
import { M4, externalLinearLayer, internalLinearLayer } from "../../hash/poseidon2.js";
import { INTERNAL_DIAGONAL } from "../../hash/poseidon2-constants.js";
import { CircuitError } from "../errors.js";

/** Committed identifiers of the structured linear maps. */
export type LinearMapId = 0 | 1 | 2;

export interface LinearMap {
  /** Committed identifier (0 identity, 1 Poseidon2 external, 2 Poseidon2 internal). */
  readonly id: LinearMapId;
  readonly name: "identity" | "poseidon2-external" | "poseidon2-internal";
  /** The map acts on 2^laneBits lanes. */
  readonly laneBits: number;
  /** Non-zero entries of the factored program (cost per block). */
  readonly terms: number;
  /** out[z] = Σ_x M[z][x]·v[x] for canonical v; out has 2^laneBits entries. */
  apply(v: ArrayLike<number>, out: Uint32Array): void;
  /** out[x] = Σ_z M[z][x]·w[z] for canonical w. */
  applyTranspose(w: ArrayLike<number>, out: Uint32Array): void;
  /** Dense rows M[z][x], canonical (reference form). */
  readonly dense: readonly (readonly number[])[];
}

function denseIdentity(n: number): number[][] {
  return Array.from({ length: n }, (_, z) => Array.from({ length: n }, (_, x) => (z === x ? 1 : 0)));
}

const identityMaps: LinearMap[] = [0, 1, 2, 3, 4].map((laneBits) => {
  const n = 2 ** laneBits;
  const copy = (v: ArrayLike<number>, out: Uint32Array) => {
    for (let i = 0; i < n; i++) out[i] = v[i]!;
  };
  return Object.freeze({
    id: 0 as const,
    name: "identity" as const,
    laneBits,
    terms: n,
    apply: copy,
    applyTranspose: copy,
    dense: denseIdentity(n),
  });
});

const tmp16 = new Float64Array(16);

/** The external matrix from its definition: M_E[z][x] = M4[z mod 4][x mod 4]·(2 if ⌊z/4⌋ = ⌊x/4⌋ else 1). */
const EXTERNAL_DENSE: readonly (readonly number[])[] = Array.from({ length: 16 }, (_, z) =>
  Array.from({ length: 16 }, (_, x) => M4[z % 4]![x % 4]! * (z >> 2 === x >> 2 ? 2 : 1)),
);

/** The internal matrix from its definition: M_I[z][x] = 1 + (V[z] if z = x). */
const INTERNAL_DENSE: readonly (readonly number[])[] = Array.from({ length: 16 }, (_, z) =>
  Array.from({ length: 16 }, (_, x) => (z === x ? (1 + INTERNAL_DIAGONAL[z]!) % P : 1)),
);

const external: LinearMap = Object.freeze({
  id: 1 as const,
  name: "poseidon2-external" as const,
  laneBits: 4,
  terms: 112,
  apply(v: ArrayLike<number>, out: Uint32Array): void {
    for (let i = 0; i < 16; i++) out[i] = v[i]!;
    externalLinearLayer(out);
  },
  applyTranspose(w: ArrayLike<number>, out: Uint32Array): void {
    // Mᵀ = (I4 + J4) ⊗ M4ᵀ: u = w + broadcast column sums (< 5p), then M4ᵀ per chunk (< 35p, exact).
    const u = tmp16;
    for (let k = 0; k < 4; k++) {
      const s = w[k]! + w[4 + k]! + w[8 + k]! + w[12 + k]!;
      u[k] = w[k]! + s;
      u[4 + k] = w[4 + k]! + s;
      u[8 + k] = w[8 + k]! + s;
      u[12 + k] = w[12 + k]! + s;
    }
    for (let c = 0; c < 16; c += 4) {
      const u0 = u[c]!,
        u1 = u[c + 1]!,
        u2 = u[c + 2]!,
        u3 = u[c + 3]!;
      // column x of M4: [M4[0][x], M4[1][x], M4[2][x], M4[3][x]]
      out[c] = (2 * u0 + u1 + u2 + 3 * u3) % P;
      out[c + 1] = (3 * u0 + 2 * u1 + u2 + u3) % P;
      out[c + 2] = (u0 + 3 * u1 + 2 * u2 + u3) % P;
      out[c + 3] = (u0 + u1 + 3 * u2 + 2 * u3) % P;
    }
  },
  dense: EXTERNAL_DENSE,
});

function internalApply(v: ArrayLike<number>, out: Uint32Array): void {
  for (let i = 0; i < 16; i++) out[i] = v[i]!;
  internalLinearLayer(out);
}

const internal: LinearMap = Object.freeze({
  id: 2 as const,
  name: "poseidon2-internal" as const,
  laneBits: 4,
  terms: 48,
  apply: internalApply,
  applyTranspose: internalApply, // M_I is symmetric
  dense: INTERNAL_DENSE,
});

/** Identity map on 2^laneBits lanes (laneBits 0..4). */
export function identityMap(laneBits: number): LinearMap {
  const m = identityMaps[laneBits];
  if (!Number.isInteger(laneBits) || m === undefined)
    throw new CircuitError("BAD_LINEAR_GROUP", `identity map lane bits must be an integer in [0, 4], got ${laneBits}`);
  return m;
}

/** Poseidon2-16 external linear layer M_E (compat-v1 §3). */
export const POSEIDON2_EXTERNAL: LinearMap = external;
/** Poseidon2-16 internal linear layer M_I (compat-v1 §3). */
export const POSEIDON2_INTERNAL: LinearMap = internal;

/**
 * The map of a committed (id, laneBits) pair.
 * @throws CircuitError `BAD_LINEAR_GROUP` for an unknown id or lane count.
 */
export function linearMapOf(id: number, laneBits: number): LinearMap {
  if (id === 0) return identityMap(laneBits);
  if ((id === 1 || id === 2) && laneBits === 4) return id === 1 ? external : internal;
  throw new CircuitError("BAD_LINEAR_GROUP", `unknown linear map (id ${id}, lane bits ${laneBits})`);
}

/** True iff `m` is one of the maps above (the only ones the IR accepts). */
export function isKnownLinearMap(m: unknown): m is LinearMap {
  return m === external || m === internal || identityMaps.includes(m as LinearMap);
}

/** Dense M·v (reference for the differential tests). */
export function denseApply(m: LinearMap, v: ArrayLike<number>): Uint32Array {
  const n = 2 ** m.laneBits;
  const out = new Uint32Array(n);
  for (let z = 0; z < n; z++) {
    let acc = 0;
    for (let x = 0; x < n; x++) acc = (acc + mul(m.dense[z]![x]!, v[x]!)) % P;
    out[z] = acc;
  }
  return out;
}
