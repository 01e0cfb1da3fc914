/**
 * Fiat–Shamir transcript: Plonky3 0.4.3 `DuplexChallenger<KoalaBear, Poseidon2-16, 16, 8>`
 * with the v0.4.x semantics (compat-v1 §5): duplexing overwrites only the buffered prefix of
 * the rate (no zero fill, no length tag), outputs are popped from the end, and an observe that
 * fills the 8-element input buffer duplexes immediately.
 *
 * The permutation defaults to `permuteFast` (this thread's hashing backend, src/hash/backend.ts:
 * the WASM single-state kernel once `installKernelBackend()` has injected it); pass `permuteInPlace` from src/hash/poseidon2.ts to run the TypeScript reference.
 * Both give the same bytes (test/transcript/differential.test.ts).
 */
import { P, element } from "../field/koalabear.js";
import { FieldError } from "../field/errors.js";
import type { Ext } from "../field/extension.js";
import { RATE, WIDTH } from "../hash/poseidon2.js";
import { permuteFast, type Permutation } from "../hash/fast-permutation.js";
import { currentHashBackend } from "../hash/backend.js";

/** The words of `observeExtsUnchecked`'s run (one transcript call at a time; grown on demand). */
let EXT_RUN = new Uint32Array(64);

/**
 * The Fiat–Shamir transcript (compat-v1 §5): a duplex sponge over Poseidon2 (rate 8, width 16) that absorbs field elements and squeezes challenges (base, extension, bits), as Plonky3 0.4.3's `DuplexChallenger`.
 * @throws FieldError `NON_CANONICAL` for an observed value not in [0, p); `BAD_BITS`.
 * @example
 *   const t = new DuplexChallenger(); t.observe(7); const r = t.sampleExt();
 */
export class DuplexChallenger {
  private readonly state = new Uint32Array(WIDTH);
  private readonly input = new Uint32Array(RATE);
  private inputLen = 0;
  private readonly output = new Uint32Array(RATE);
  private outputLen = 0;
  private readonly permute: Permutation;

  /** A fresh challenger (zero state, empty buffers). @param permute the §3 permutation to use. */
  constructor(permute: Permutation = permuteFast) {
    this.permute = permute;
  }

  /** A fresh challenger that has observed every byte of the ASCII domain tag (compat-v1 §5 `new(tag)`). */
  static withDomain(tag: string, permute: Permutation = permuteFast): DuplexChallenger {
    const t = new DuplexChallenger(permute);
    t.observeBytes(new TextEncoder().encode(tag));
    return t;
  }

  /** Deep copy (state, both buffers and the permutation). */
  clone(): DuplexChallenger {
    const c = new DuplexChallenger(this.permute);
    c.state.set(this.state);
    c.input.set(this.input);
    c.inputLen = this.inputLen;
    c.output.set(this.output);
    c.outputLen = this.outputLen;
    return c;
  }

  private duplex(): void {
    for (let i = 0; i < this.inputLen; i++) this.state[i] = this.input[i]!;
    this.inputLen = 0;
    this.permute(this.state);
    for (let i = 0; i < RATE; i++) this.output[i] = this.state[i]!;
    this.outputLen = RATE;
  }

  /** Observes one canonical base element (not validated: callers pass field values). */
  observeUnchecked(x: number): void {
    this.outputLen = 0;
    this.input[this.inputLen++] = x;
    if (this.inputLen === RATE) this.duplex();
  }

  /**
   * Observes canonical base elements in order (not validated), exactly as `observeUnchecked` on
   * each: the whole 8-element blocks of a long run are absorbed by the WASM sponge kernel in a few
   * calls when this challenger uses the default permutation.
   */
  observeAllUnchecked(xs: ArrayLike<number>): void {
    const n = xs.length;
    let i = 0;
    while (i < n && this.inputLen !== 0) this.observeUnchecked(xs[i++]!);
    const blocks = (n - i) & ~7;
    const hk = blocks > 0 && this.permute === permuteFast ? currentHashBackend() : null;
    if (hk?.absorbBlocks) {
      hk.absorbBlocks(this.state, xs, i, blocks);
      i += blocks;
      for (let j = 0; j < RATE; j++) this.output[j] = this.state[j]!;
      this.outputLen = RATE;
    }
    while (i < n) this.observeUnchecked(xs[i++]!);
  }

  /** Observes one base element. @throws FieldError if x is not canonical. */
  observe(x: number): void {
    this.observeUnchecked(element(x, "observed value"));
  }

  /** Observes each element in order. */
  observeMany(xs: ArrayLike<number>): void {
    for (let i = 0; i < xs.length; i++) this.observe(xs[i]!);
  }

  /**
   * observe_ext of each element in order (canonical, not validated), as one run of words, so that
   * a long run goes through the sponge kernel in whole 8-element blocks (`observeAllUnchecked`).
   */
  observeExtsUnchecked(values: readonly Ext[]): void {
    const n = 4 * values.length;
    if (EXT_RUN.length < n) EXT_RUN = new Uint32Array(Math.max(n, 2 * EXT_RUN.length));
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      EXT_RUN[4 * i] = v[0];
      EXT_RUN[4 * i + 1] = v[1];
      EXT_RUN[4 * i + 2] = v[2];
      EXT_RUN[4 * i + 3] = v[3];
    }
    this.observeAllUnchecked(EXT_RUN.subarray(0, n));
  }

  /** observe_ext: c0, c1, c2, c3 in order. */
  observeExt(e: Ext): void {
    this.observeUnchecked(e[0]);
    this.observeUnchecked(e[1]);
    this.observeUnchecked(e[2]);
    this.observeUnchecked(e[3]);
  }

  /** observe_digest: the 8 elements in order. */
  observeDigest(d: ArrayLike<number>): void {
    if (d.length !== RATE) throw new FieldError("BAD_LENGTH", `digest must have ${RATE} elements, got ${d.length}`);
    this.observeMany(d);
  }

  /** Observes every byte as one field element (bytes < p, so no reduction happens). */
  observeBytes(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) this.observeUnchecked(bytes[i]!);
  }

  /** sample() → F: duplexes if inputs are pending or no output is left, then pops the last output. */
  sample(): number {
    if (this.inputLen > 0 || this.outputLen === 0) this.duplex();
    return this.output[--this.outputLen]!;
  }

  /** sample_ext() → K: c0, c1, c2, c3 sampled in that order. */
  sampleExt(): Ext {
    const c0 = this.sample();
    const c1 = this.sample();
    const c2 = this.sample();
    const c3 = this.sample();
    return [c0, c1, c2, c3];
  }

  /**
   * Proof-of-work grinding (docs/pcs.md §4.6): finds the least witness w ≥ 0 such that
   * `observe(w)` followed by `sampleBits(bits)` gives 0, then performs exactly those two calls on
   * this transcript (as `checkWitness(bits, w)` does for the verifier) and returns w. Expected
   * cost 2^bits permutations; the hashing backend's `grindSearch` runs the search when this
   * challenger uses the default permutation and the backend has one, one clone at a time otherwise
   * (`grindReference`, same witness).
   * @throws FieldError `BAD_BITS` as `sampleBits`.
   */
  grind(bits: number): number {
    if (bits === 0) return this.grindReference(0);
    if (!Number.isInteger(bits) || bits < 0 || 2 ** bits >= P) return this.grindReference(bits);
    if (this.permute !== permuteFast) return this.grindReference(bits);
    const backend = currentHashBackend();
    if (backend.grindSearch === undefined) return this.grindReference(bits);
    const template = this.state.slice();
    for (let i = 0; i < this.inputLen; i++) template[i] = this.input[i]!;
    const mask = ((1 << bits) - 1) >>> 0;
    const chunk = 1 << 16;
    for (let start = 0; start < P; start += chunk) {
      const found = backend.grindSearch(template, this.inputLen, mask, start, Math.min(chunk, P - start));
      if (found >= 0) {
        const w = start + found;
        if (!this.checkWitness(bits, w))
          throw new FieldError("BAD_BITS", "grinding: the searched candidate does not check (hash backend mismatch)");
        return w;
      }
    }
    throw new FieldError("BAD_BITS", `no grinding witness for ${bits} bits below p`);
  }

  /**
   * What `grind`'s search reads of this transcript: the state with the pending input written over
   * its first lanes (`template`) and the input's length (`lane`, where the witness goes), or null
   * when `grind` would not search through the hashing backend (another permutation, or a backend
   * without `grindSearch`). A search elsewhere (the commitment's pool) that finds the least witness
   * w of `bits` bits gives the transcript `grind` gives after `checkWitness(bits, w)`.
   */
  grindTemplate(): { readonly template: Uint32Array; readonly lane: number } | null {
    if (this.permute !== permuteFast || currentHashBackend().grindSearch === undefined) return null;
    const template = this.state.slice();
    for (let i = 0; i < this.inputLen; i++) template[i] = this.input[i]!;
    return { template, lane: this.inputLen };
  }

  /** `grind` by trying each witness on a clone of this transcript (the reference). */
  grindReference(bits: number): number {
    for (let w = 0; w < P; w++) {
      const trial = this.clone();
      if (trial.checkWitness(bits, w)) {
        this.checkWitness(bits, w);
        return w;
      }
    }
    throw new FieldError("BAD_BITS", `no grinding witness for ${bits} bits below p`);
  }

  /** The verifier's side of `grind`: observes the witness, samples `bits` bits and tells whether they are 0. @throws FieldError if the witness is not canonical. */
  checkWitness(bits: number, witness: number): boolean {
    this.observe(witness);
    return this.sampleBits(bits) === 0;
  }

  /** sample_bits(bits): the low `bits` bits of one canonical sample; requires 2^bits < p. */
  sampleBits(bits: number): number {
    if (!Number.isInteger(bits) || bits < 0 || 2 ** bits >= P) {
      throw new FieldError("BAD_BITS", `sampleBits needs an integer bit count with 2^bits < p, got ${bits}`);
    }
    const v = this.sample();
    return bits === 0 ? 0 : v & (((1 << bits) - 1) >>> 0);
  }
}
