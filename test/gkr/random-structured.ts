/**
 * fast-check generators of small random structured circuits (profile v2 linear groups): every map
 * (identity of 1..16 lanes, Poseidon2 external and internal), cube masks none / lane 0 / all /
 * random, zero and random constant vectors, block bases that are progressions (closed-form
 * wiring) or scattered (table fallback), plus random plain gates of every kind and constants.
 */
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { type Gate, GateKind, makeLayer } from "../../src/gkr/circuit.js";
import {
  type LinearBlockGroup,
  type StructuredCircuit,
  evaluateStructuredCircuit,
  structuredLayer,
} from "../../src/gkr/structured/linear.js";
import { type LinearMap, POSEIDON2_EXTERNAL, POSEIDON2_INTERNAL, identityMap } from "../../src/gkr/structured/maps.js";

export interface StructuredCase {
  readonly circuit: StructuredCircuit;
  readonly input: Uint32Array;
  readonly witness: Uint32Array[];
}

/** A small deterministic PRNG (xorshift32) so one fast-check integer drives a whole circuit. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.s = x;
    return x;
  }
  int(n: number): number {
    return this.next() % n;
  }
  fe(): number {
    const r = this.int(8);
    if (r === 0) return 0;
    if (r === 1) return P - 1;
    if (r === 2) return 1;
    return this.next() % P;
  }
  /** n canonical field elements (`fe` each: mostly random, some 0, 1 and p − 1). */
  words(n: number): Uint32Array {
    return Uint32Array.from({ length: n }, () => this.fe());
  }
}

function randomGroup(rng: Rng, outBits: number, inBits: number): LinearBlockGroup | null {
  const maxLane = Math.min(outBits, inBits, 4);
  let map: LinearMap;
  const pick = rng.int(3);
  if (pick >= 1 && maxLane === 4) map = pick === 1 ? POSEIDON2_EXTERNAL : POSEIDON2_INTERNAL;
  else map = identityMap(rng.int(maxLane + 1));
  const lb = map.laneBits;
  const lanes = 2 ** lb;
  const outHi = outBits - lb,
    inHi = inBits - lb;
  const m = rng.int(4);
  const cubeMask = m === 0 ? 0 : m === 1 ? 1 : m === 2 ? 2 ** lanes - 1 : rng.int(2 ** lanes);
  const constants = new Uint32Array(lanes);
  if (rng.int(2) === 1) for (let z = 0; z < lanes; z++) constants[z] = rng.fe();
  const outBase: number[] = [];
  const inBase: number[] = [];
  if (rng.int(3) > 0) {
    // a progression: q_b = base | (b << shift) on both sides
    const maxCountBits = Math.min(outHi, inHi, 2);
    const bits = rng.int(maxCountBits + 1);
    const count = bits === 0 ? 1 : 2 ** (bits - 1) + 1 + rng.int(2 ** (bits - 1));
    const so = rng.int(outHi - bits + 1),
      si = rng.int(inHi - bits + 1);
    const bo = rng.int(2 ** outHi) & ~((2 ** bits - 1) << so);
    const bi = rng.int(2 ** inHi) & ~((2 ** bits - 1) << si);
    for (let b = 0; b < count; b++) {
      outBase.push((bo | (b << so)) * lanes);
      inBase.push((bi | (b << si)) * lanes);
    }
  } else {
    const count = 1 + rng.int(3);
    for (let b = 0; b < count; b++) {
      outBase.push(rng.int(2 ** outHi) * lanes);
      inBase.push(rng.int(2 ** inHi) * lanes);
    }
  }
  return { map, cubeMask, constants, outBase: Uint32Array.from(outBase), inBase: Uint32Array.from(inBase) };
}

/** A random structured circuit of 1..maxDepth layers with width bits in [minBits, maxBits]. */
export function randomStructuredCase(
  seed: number,
  opts: { maxDepth?: number; minBits?: number; maxBits?: number; maxGates?: number } = {},
): StructuredCase {
  const rng = new Rng(seed);
  const D = 1 + rng.int(opts.maxDepth ?? 3);
  const minBits = opts.minBits ?? 3,
    maxBits = opts.maxBits ?? 5;
  const bits = Array.from({ length: D + 1 }, () => minBits + rng.int(maxBits - minBits + 1));
  const layers = [];
  for (let i = 0; i < D; i++) {
    const outN = 2 ** bits[i]!,
      inN = 2 ** bits[i + 1]!;
    const gates: Gate[] = [];
    const nGates = rng.int((opts.maxGates ?? 8) + 1);
    for (let g = 0; g < nGates; g++) {
      const kind = rng.int(3) as GateKind;
      const in1 = rng.int(inN);
      gates.push({ kind, out: rng.int(outN), in1, in2: kind === GateKind.Mul ? rng.int(inN) : in1, coeff: rng.fe() });
    }
    const consts = Array.from({ length: rng.int(3) }, () => ({ wire: rng.int(outN), value: rng.fe() }));
    const groups: LinearBlockGroup[] = [];
    const nGroups = rng.int(4);
    for (let k = 0; k < nGroups; k++) {
      const g = randomGroup(rng, bits[i]!, bits[i + 1]!);
      if (g) groups.push(g);
    }
    layers.push(structuredLayer(makeLayer(bits[i]!, gates, consts), groups));
  }
  const circuit: StructuredCircuit = { inputWidthBits: bits[D]!, layers };
  const input = Uint32Array.from({ length: 2 ** bits[D]! }, () => rng.fe());
  const witness = evaluateStructuredCircuit(circuit, input);
  return { circuit, input: witness[D]!, witness };
}

/** fast-check arbitrary of random structured cases. */
export function arbStructuredCase(opts: Parameters<typeof randomStructuredCase>[1] = {}): fc.Arbitrary<StructuredCase> {
  return fc.integer({ min: 1, max: 0x7fffffff }).map((seed) => randomStructuredCase(seed, opts));
}
