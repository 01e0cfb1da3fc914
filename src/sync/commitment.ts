/**
 * Full circuit commitment (compat-v1 §12).
 *
 * Transcript t = new("ssgkr/circuit-commitment/v1") with the duplex semantics of §5. Observed, each
 * as one field element: kind tag, depth, leaf_max_fields, strategy id, strategy arg,
 * input_width_bits, layer count; then per layer (output first): width_bits, gate count, every gate
 * as (kind, out, in1, in2, coeff) in emission order, const count, every const as (wire, value).
 * Then a = sample_ext(), b = sample_ext(); commitment = (a.c0..a.c3, b.c0..b.c3).
 *
 * `circuitCommitment` is the fast path: it runs the duplex directly over the layer arrays, writing
 * each element into the rate lanes and permuting every 8 elements, which is what the challenger
 * does when nothing is sampled in between. `circuitCommitmentReference` goes through
 * `DuplexChallenger` one element at a time and is the reference for the differential test.
 */
import { P } from "../field/koalabear.js";
import { CircuitError } from "../gkr/errors.js";
import type { Circuit, Layer } from "../gkr/circuit.js";
import type { Digest } from "../hash/digest.js";
import { RATE, WIDTH, permuteInPlace } from "../hash/poseidon2.js";
import { DuplexChallenger } from "../transcript/challenger.js";
import { COMMITMENT_DOMAIN_TAG } from "../transcript/domains.js";
import type { SyncConfig } from "./config.js";

/** The seven header scalars of §12 step 1. */
export interface CommitmentHeader {
  /** Operation kind tag 0/1/2. */
  readonly kindTag: number;
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly strategyId: number;
  readonly strategyArg: number;
}

/** The header of a compiled circuit for (kind, config). */
export function commitmentHeader(kindTag: number, config: SyncConfig): CommitmentHeader {
  return { kindTag, depth: config.depth, leafMaxFields: config.leafMaxFields, strategyId: config.strategy.id, strategyArg: config.strategy.arg };
}

/** Every scalar must already be canonical; the reference treats a larger value as a hard error. */
function checkScalar(x: number, what: string): void {
  if (!Number.isInteger(x) || x < 0 || x >= P) throw new CircuitError("NON_CANONICAL_COEFF", `commitment scalar ${what} = ${x} is not in [0, p)`, { what });
}

function checkCircuit(header: CommitmentHeader, circuit: Circuit): void {
  checkScalar(header.kindTag, "kind tag");
  checkScalar(header.depth, "depth");
  checkScalar(header.leafMaxFields, "leaf_max_fields");
  checkScalar(header.strategyId, "strategy id");
  checkScalar(header.strategyArg, "strategy arg");
  checkScalar(circuit.inputWidthBits, "input_width_bits");
  circuit.layers.forEach((layer, i) => {
    checkScalar(layer.widthBits, `layer ${i} width_bits`);
    const { gateCoeff, constValue } = layer;
    for (let g = 0; g < gateCoeff.length; g++) if (gateCoeff[g]! >= P) checkScalar(gateCoeff[g]!, `layer ${i} gate ${g} coeff`);
    for (let c = 0; c < constValue.length; c++) if (constValue[c]! >= P) checkScalar(constValue[c]!, `layer ${i} const ${c} value`);
  });
}

function headerScalars(header: CommitmentHeader, circuit: Circuit): number[] {
  return [header.kindTag, header.depth, header.leafMaxFields, header.strategyId, header.strategyArg, circuit.inputWidthBits, circuit.layers.length];
}

/** Number of field elements the commitment absorbs after the domain tag. */
export function commitmentLength(circuit: Circuit): number {
  let n = 7;
  for (const layer of circuit.layers) n += 3 + 5 * layer.gateKind.length + 2 * layer.constWire.length;
  return n;
}

/**
 * The §12 commitment of a circuit: 8 canonical elements.
 * @throws CircuitError `NON_CANONICAL_COEFF` if any absorbed scalar is not in [0, p).
 */
export function circuitCommitment(header: CommitmentHeader, circuit: Circuit): Digest {
  checkCircuit(header, circuit);
  const s = new Uint32Array(WIDTH);
  let pos = 0;
  const absorb = (x: number): void => {
    s[pos++] = x;
    if (pos === RATE) {
      permuteInPlace(s);
      pos = 0;
    }
  };
  const tag = new TextEncoder().encode(COMMITMENT_DOMAIN_TAG);
  for (let i = 0; i < tag.length; i++) absorb(tag[i]!);
  for (const x of headerScalars(header, circuit)) absorb(x);
  for (const layer of circuit.layers) {
    absorb(layer.widthBits);
    pos = absorbGates(s, pos, layer);
    pos = absorbConsts(s, pos, layer);
  }
  // sample_ext twice: a pending partial block is duplexed first; the 8 outputs are popped from the end.
  if (pos > 0) permuteInPlace(s);
  return Uint32Array.of(s[7]!, s[6]!, s[5]!, s[4]!, s[3]!, s[2]!, s[1]!, s[0]!);
}

/** Absorbs gate count and gates starting at rate position pos; returns the new position. */
function absorbGates(s: Uint32Array, pos: number, layer: Layer): number {
  const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff } = layer;
  const n = gateKind.length;
  s[pos++] = n;
  if (pos === RATE) {
    permuteInPlace(s);
    pos = 0;
  }
  for (let g = 0; g < n; g++) {
    // Five scalars per gate; write them in order, permuting whenever the rate fills.
    const k0 = gateKind[g]!, k1 = gateOut[g]!, k2 = gateIn1[g]!, k3 = gateIn2[g]!, k4 = gateCoeff[g]!;
    if (pos <= RATE - 5) {
      s[pos] = k0;
      s[pos + 1] = k1;
      s[pos + 2] = k2;
      s[pos + 3] = k3;
      s[pos + 4] = k4;
      pos += 5;
      if (pos === RATE) {
        permuteInPlace(s);
        pos = 0;
      }
    } else {
      s[pos++] = k0;
      if (pos === RATE) { permuteInPlace(s); pos = 0; }
      s[pos++] = k1;
      if (pos === RATE) { permuteInPlace(s); pos = 0; }
      s[pos++] = k2;
      if (pos === RATE) { permuteInPlace(s); pos = 0; }
      s[pos++] = k3;
      if (pos === RATE) { permuteInPlace(s); pos = 0; }
      s[pos++] = k4;
      if (pos === RATE) { permuteInPlace(s); pos = 0; }
    }
  }
  return pos;
}

/** Absorbs const count and consts starting at rate position pos; returns the new position. */
function absorbConsts(s: Uint32Array, pos: number, layer: Layer): number {
  const { constWire, constValue } = layer;
  const n = constWire.length;
  s[pos++] = n;
  if (pos === RATE) {
    permuteInPlace(s);
    pos = 0;
  }
  for (let c = 0; c < n; c++) {
    s[pos++] = constWire[c]!;
    if (pos === RATE) { permuteInPlace(s); pos = 0; }
    s[pos++] = constValue[c]!;
    if (pos === RATE) { permuteInPlace(s); pos = 0; }
  }
  return pos;
}

/**
 * Reference implementation of §12 through `DuplexChallenger` (one observe per scalar).
 * @throws FieldError if an absorbed scalar is not canonical.
 */
export function circuitCommitmentReference(header: CommitmentHeader, circuit: Circuit): Digest {
  const t = DuplexChallenger.withDomain(COMMITMENT_DOMAIN_TAG);
  for (const x of headerScalars(header, circuit)) t.observe(x);
  for (const layer of circuit.layers) {
    t.observe(layer.widthBits);
    t.observe(layer.gateKind.length);
    for (let g = 0; g < layer.gateKind.length; g++) {
      t.observe(layer.gateKind[g]!);
      t.observe(layer.gateOut[g]!);
      t.observe(layer.gateIn1[g]!);
      t.observe(layer.gateIn2[g]!);
      t.observe(layer.gateCoeff[g]!);
    }
    t.observe(layer.constWire.length);
    for (let c = 0; c < layer.constWire.length; c++) {
      t.observe(layer.constWire[c]!);
      t.observe(layer.constValue[c]!);
    }
  }
  const a = t.sampleExt();
  const b = t.sampleExt();
  return Uint32Array.of(...a, ...b);
}
