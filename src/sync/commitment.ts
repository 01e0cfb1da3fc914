/**
 * Full circuit commitment (compat-v1 §12).
 *
 * Transcript t = new("ssgkr/circuit-commitment/v1") with the duplex semantics of §5. Observed, each
 * as one field element: kind tag, depth, leaf_max_fields, strategy id, strategy arg,
 * input_width_bits, layer count; then per layer (output first): width_bits, gate count, every gate
 * as (kind, out, in1, in2, coeff) in emission order, const count, every const as (wire, value).
 * Then a = sample_ext(), b = sample_ext(); commitment = (a.c0..a.c3, b.c0..b.c3).
 *
 * Nothing is sampled before the end, so the transcript is one overwrite sponge over the word
 * stream tag bytes ‖ header ‖ layers (a final partial block is duplexed by the first sample), and
 * the commitment is lanes 7, 6, …, 0 of the final state.
 *
 * - `circuitCommitment`: the stream is written window by window into WASM memory (the layer
 *   arrays are copied and interleaved there) and absorbed by the single-state sponge kernel.
 * - `circuitCommitments`: several circuits at once, two sponges interleaved (default) or four SIMD
 *   lanes (src/kernels/sponge-runner.ts).
 * - `circuitCommitmentScalar`: the same stream absorbed in TypeScript (used when the kernel module
 *   is not available).
 * - `circuitCommitmentReference`: one `observe` per scalar through a `DuplexChallenger` with the
 *   TypeScript permutation; the reference of the differential tests.
 */
import { P } from "../field/koalabear.js";
import { CircuitError } from "../gkr/errors.js";
import type { Circuit, Layer } from "../gkr/circuit.js";
import type { Digest } from "../hash/digest.js";
import { RATE, WIDTH, permuteInPlace } from "../hash/poseidon2.js";
import { KernelError } from "../kernels/errors.js";
import { type HashKernels, hashKernels } from "../kernels/hash-kernels.js";
import { absorbSource, absorbSources, type WordSource } from "../kernels/sponge-runner.js";
import { DuplexChallenger } from "../transcript/challenger.js";
import { COMMITMENT_DOMAIN_TAG } from "../transcript/domains.js";
import type { SyncConfig } from "../smt/config.js";
import { type OpKind, opKindTag } from "../statement/types.js";

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
export function commitmentHeader(kind: OpKind | number, config: SyncConfig): CommitmentHeader {
  const kindTag = typeof kind === "string" ? opKindTag(kind) : kind;
  return {
    kindTag,
    depth: config.depth,
    leafMaxFields: config.leafMaxFields,
    strategyId: config.strategy.id,
    strategyArg: config.strategy.arg,
  };
}

/** Every scalar must already be canonical; the reference treats a larger value as a hard error. */
function checkScalar(x: number, what: string): void {
  if (!Number.isInteger(x) || x < 0 || x >= P)
    throw new CircuitError("NON_CANONICAL_COEFF", `commitment scalar ${what} = ${x} is not in [0, p)`, { what });
}

/** The header scalars and input_width_bits. */
function checkHeader(header: CommitmentHeader, circuit: Circuit): void {
  checkScalar(header.kindTag, "kind tag");
  checkScalar(header.depth, "depth");
  checkScalar(header.leafMaxFields, "leaf_max_fields");
  checkScalar(header.strategyId, "strategy id");
  checkScalar(header.strategyArg, "strategy arg");
  checkScalar(circuit.inputWidthBits, "input_width_bits");
}

function checkCircuit(header: CommitmentHeader, circuit: Circuit): void {
  checkHeader(header, circuit);
  circuit.layers.forEach((layer, i) => {
    checkScalar(layer.widthBits, `layer ${i} width_bits`);
    const { gateCoeff, constValue } = layer;
    for (let g = 0; g < gateCoeff.length; g++)
      if (gateCoeff[g]! >= P) checkScalar(gateCoeff[g]!, `layer ${i} gate ${g} coeff`);
    for (let c = 0; c < constValue.length; c++)
      if (constValue[c]! >= P) checkScalar(constValue[c]!, `layer ${i} const ${c} value`);
  });
}

function headerScalars(header: CommitmentHeader, circuit: Circuit): number[] {
  return [
    header.kindTag,
    header.depth,
    header.leafMaxFields,
    header.strategyId,
    header.strategyArg,
    circuit.inputWidthBits,
    circuit.layers.length,
  ];
}

/** Number of field elements the commitment absorbs after the domain tag. */
export function commitmentLength(circuit: Circuit): number {
  let n = 7;
  for (const layer of circuit.layers) n += 3 + 5 * layer.gateKind.length + 2 * layer.constWire.length;
  return n;
}

/** Header scalars and array lengths (the per-element range check runs on the absorbed stream). */
function checkShape(header: CommitmentHeader, circuit: Circuit): void {
  checkHeader(header, circuit);
  circuit.layers.forEach((layer, i) => {
    checkScalar(layer.widthBits, `layer ${i} width_bits`);
    const n = layer.gateKind.length;
    if (
      layer.gateOut.length !== n ||
      layer.gateIn1.length !== n ||
      layer.gateIn2.length !== n ||
      layer.gateCoeff.length !== n
    ) {
      throw new CircuitError("BAD_WIDTH", `layer ${i}: gate arrays have different lengths`, { layer: i });
    }
    if (layer.constValue.length !== layer.constWire.length) {
      throw new CircuitError("BAD_WIDTH", `layer ${i}: constant arrays have different lengths`, { layer: i });
    }
  });
}

/** One piece of the absorbed stream: literal words, the gates of a layer or its constants. */
type Segment =
  | { readonly kind: "words"; readonly words: Uint32Array }
  | { readonly kind: "gates"; readonly layer: Layer; readonly index: number }
  | { readonly kind: "consts"; readonly layer: Layer; readonly index: number };

/** Words per item of a segment. */
function itemWords(seg: Segment): number {
  return seg.kind === "words" ? 1 : seg.kind === "gates" ? 5 : 2;
}

function itemCount(seg: Segment): number {
  return seg.kind === "words"
    ? seg.words.length
    : seg.kind === "gates"
      ? seg.layer.gateKind.length
      : seg.layer.constWire.length;
}

/**
 * The §12 stream of one circuit (domain tag bytes first) as a `WordSource`: literal words are
 * copied, gate and constant arrays are copied into WASM memory and interleaved there.
 */
class CommitmentWords implements WordSource {
  readonly length: number;
  private readonly segments: Segment[] = [];
  private seg = 0;
  private item = 0;

  constructor(header: CommitmentHeader, circuit: Circuit) {
    const tag = new TextEncoder().encode(COMMITMENT_DOMAIN_TAG);
    const head = new Uint32Array(tag.length + 7);
    head.set(tag);
    head.set(headerScalars(header, circuit), tag.length);
    this.segments.push({ kind: "words", words: head });
    circuit.layers.forEach((layer, index) => {
      this.segments.push({ kind: "words", words: Uint32Array.of(layer.widthBits, layer.gateKind.length) });
      this.segments.push({ kind: "gates", layer, index });
      this.segments.push({ kind: "words", words: Uint32Array.of(layer.constWire.length) });
      this.segments.push({ kind: "consts", layer, index });
    });
    let n = 0;
    for (const sg of this.segments) n += itemWords(sg) * itemCount(sg);
    this.length = n;
  }

  fill(hk: HashKernels, dst: number, max: number): number {
    let written = 0;
    while (this.seg < this.segments.length) {
      const sg = this.segments[this.seg]!;
      const left = itemCount(sg) - this.item;
      const items = Math.min(left, Math.floor((max - written) / itemWords(sg)));
      if (left > 0 && items === 0) break;
      const at = dst + 4 * written;
      if (sg.kind === "words") {
        new Uint32Array(hk.heap.memory.buffer, at, items).set(sg.words.subarray(this.item, this.item + items));
      } else if (sg.kind === "gates") {
        const l = sg.layer;
        const g0 = this.item,
          g1 = this.item + items;
        interleave(hk, at, [
          l.gateKind.subarray(g0, g1),
          l.gateOut.subarray(g0, g1),
          l.gateIn1.subarray(g0, g1),
          l.gateIn2.subarray(g0, g1),
          l.gateCoeff.subarray(g0, g1),
        ]);
      } else {
        const l = sg.layer;
        const c0 = this.item,
          c1 = this.item + items;
        interleave(hk, at, [l.constWire.subarray(c0, c1), l.constValue.subarray(c0, c1)]);
      }
      written += items * itemWords(sg);
      this.item += items;
      if (this.item === itemCount(sg)) {
        this.seg++;
        this.item = 0;
      }
    }
    return written;
  }

  /** Where word `index` of the stream comes from, for error messages. */
  describe(index: number): string {
    let base = 0;
    for (const sg of this.segments) {
      const words = itemWords(sg) * itemCount(sg);
      if (index < base + words) {
        const off = index - base;
        if (sg.kind === "words") return `scalar at stream position ${index}`;
        const item = Math.floor(off / itemWords(sg));
        const field = off % itemWords(sg);
        return sg.kind === "gates"
          ? `layer ${sg.index} gate ${item} ${["kind", "out", "in1", "in2", "coeff"][field]}`
          : `layer ${sg.index} const ${item} ${["wire", "value"][field]}`;
      }
      base += words;
    }
    return `stream position ${index}`;
  }
}

/** Interleaves equally long arrays into words at byte pointer dst (dst[k·i + j] = arrays[j][i]). */
function interleave(hk: HashKernels, dst: number, arrays: readonly (Uint8Array | Uint32Array)[]): void {
  const n = arrays[0]!.length;
  const k = arrays.length;
  const stride = (n + 3) & ~3;
  // Words [0, 8): the table of source pointers; array j at word 8 + j·stride.
  const tmp = hk.heap.alloc(8 + k * stride);
  try {
    const v = tmp.view();
    for (let j = 0; j < k; j++) {
      v.set(arrays[j]!, 8 + j * stride);
      v[j] = tmp.ptr + 4 * (8 + j * stride);
    }
    hk.raw.interleave_words(dst, tmp.ptr, k, n);
  } finally {
    hk.heap.release(tmp);
  }
}

/** The commitment from a final sponge state: lanes 7, 6, …, 0 (two sample_ext pops). */
function fromState(s: Uint32Array): Digest {
  return Uint32Array.of(s[7]!, s[6]!, s[5]!, s[4]!, s[3]!, s[2]!, s[1]!, s[0]!);
}

/** Maps the stream check of the sponge runner to the commitment's error. */
function rethrow(e: unknown, sources: readonly CommitmentWords[]): never {
  if (e instanceof KernelError && e.code === "NON_CANONICAL") {
    const d = e.details as { source: number; index: number; value: number };
    const where = sources[d.source]!.describe(d.index);
    throw new CircuitError("NON_CANONICAL_COEFF", `commitment scalar ${where} = ${d.value} is not in [0, p)`, {
      what: where,
    });
  }
  throw e;
}

/**
 * The §12 commitment of a circuit: 8 canonical elements. Runs the WASM sponge when the kernel
 * module is available, `circuitCommitmentScalar` otherwise.
 * @throws CircuitError `NON_CANONICAL_COEFF` if any absorbed scalar is not in [0, p); `BAD_WIDTH`
 *   if a layer's gate or constant arrays have different lengths.
 */
export function circuitCommitment(header: CommitmentHeader, circuit: Circuit): Digest {
  const hk = hashKernels();
  if (!hk) return circuitCommitmentScalar(header, circuit);
  checkShape(header, circuit);
  const source = new CommitmentWords(header, circuit);
  try {
    return fromState(absorbSource(hk, source));
  } catch (e) {
    rethrow(e, [source]);
  }
}

/** Options of `circuitCommitments`. */
export interface CommitmentsOptions {
  /**
   * Sponges run at once: 2 (two states interleaved, the default and fastest for the three SMT
   * circuits) or 4 (the four SIMD lanes of the x4 permutation).
   */
  readonly lanes?: 2 | 4;
}

/**
 * §12 commitments of several circuits computed side by side (same values as `circuitCommitment`
 * on each). Without the kernel module, falls back to `circuitCommitmentScalar` one by one.
 * @throws CircuitError as `circuitCommitment`; KernelError `BAD_OPTIONS` for another lane count.
 */
export function circuitCommitments(
  items: readonly { readonly header: CommitmentHeader; readonly circuit: Circuit }[],
  options: CommitmentsOptions = {},
): Digest[] {
  const hk = hashKernels();
  if (!hk) return items.map((it) => circuitCommitmentScalar(it.header, it.circuit));
  for (const it of items) checkShape(it.header, it.circuit);
  const sources = items.map((it) => new CommitmentWords(it.header, it.circuit));
  try {
    return absorbSources(hk, sources, options.lanes ?? 2).map(fromState);
  } catch (e) {
    rethrow(e, sources);
  }
}

/**
 * The §12 commitment absorbed in TypeScript (writes each scalar into the rate lanes, permuting
 * every 8), for when the WASM kernels are not available.
 * @throws CircuitError `NON_CANONICAL_COEFF` if any absorbed scalar is not in [0, p).
 */
export function circuitCommitmentScalar(header: CommitmentHeader, circuit: Circuit): Digest {
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
    const k0 = gateKind[g]!,
      k1 = gateOut[g]!,
      k2 = gateIn1[g]!,
      k3 = gateIn2[g]!,
      k4 = gateCoeff[g]!;
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
      if (pos === RATE) {
        permuteInPlace(s);
        pos = 0;
      }
      s[pos++] = k1;
      if (pos === RATE) {
        permuteInPlace(s);
        pos = 0;
      }
      s[pos++] = k2;
      if (pos === RATE) {
        permuteInPlace(s);
        pos = 0;
      }
      s[pos++] = k3;
      if (pos === RATE) {
        permuteInPlace(s);
        pos = 0;
      }
      s[pos++] = k4;
      if (pos === RATE) {
        permuteInPlace(s);
        pos = 0;
      }
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
    if (pos === RATE) {
      permuteInPlace(s);
      pos = 0;
    }
    s[pos++] = constValue[c]!;
    if (pos === RATE) {
      permuteInPlace(s);
      pos = 0;
    }
  }
  return pos;
}

/**
 * Reference implementation of §12 through `DuplexChallenger` (one observe per scalar).
 * @throws FieldError if an absorbed scalar is not canonical.
 */
export function circuitCommitmentReference(header: CommitmentHeader, circuit: Circuit): Digest {
  const t = DuplexChallenger.withDomain(COMMITMENT_DOMAIN_TAG, permuteInPlace);
  for (const x of headerScalars(header, circuit)) t.observe(x);
  for (const layer of circuit.layers) observeLayerGates(t, layer);
  const a = t.sampleExt();
  const b = t.sampleExt();
  return Uint32Array.of(...a, ...b);
}

/**
 * The §12 absorption of one layer's plain part, one observe per scalar: width bits, gate count,
 * each gate (kind, out, in1, in2, coeff), constant count, each constant (wire, value). The v1
 * reference above and the structured commitment of profiles v2 and v3 (v2/commitment.ts, which
 * then absorbs the layer's linear groups) share it.
 * @throws FieldError (through `observe`) if a scalar is not canonical.
 */
export function observeLayerGates(t: { observe(x: number): void }, layer: Layer): void {
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
