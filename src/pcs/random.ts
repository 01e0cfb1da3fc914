/**
 * Randomness of the hiding commitment (docs/pcs.md §12.3): τ's coefficients and g′'s values are
 * drawn from a source that fills an array with uniformly random canonical field elements. The
 * default draws from the platform's cryptographic generator (`crypto.getRandomValues`, the
 * Web Crypto API of Node 20 and browsers) by rejection; `whirSeededRandomSource` is a
 * deterministic source for tests and known answers, never for proofs that must hide.
 */
import { P } from "../field/koalabear.js";
import { DuplexChallenger } from "../transcript/challenger.js";
import { PcsError } from "./errors.js";

/** Fills `out` with uniformly random canonical field elements (each < p), independently. */
export type WhirRandomSource = (out: Uint32Array) => void;

/** The domain tag of `whirSeededRandomSource`'s duplex challenger. */
export const WHIR_SEED_DOMAIN_TAG = "ssgkr/pcs/whir-hiding-seed/v1";

const CHUNK = 16384; // getRandomValues fills at most 65,536 bytes per call

/**
 * The default source: 31-bit draws of `crypto.getRandomValues` written in place, each rejected when
 * ≥ p (about 0.8 % of draws) and replaced by the next accepted draw of a small spare buffer: every
 * value is the first accepted of independent uniform draws, so uniform on [0, p) and independent.
 */
export const cryptoRandomSource: WhirRandomSource = (out) => {
  for (let at = 0; at < out.length; at += CHUNK)
    globalThis.crypto.getRandomValues(out.subarray(at, Math.min(out.length, at + CHUNK)));
  const spare = new Uint32Array(64);
  let s = spare.length;
  for (let i = 0; i < out.length; i++) {
    let v = out[i]! >>> 1;
    while (v >= P) {
      if (s === spare.length) {
        globalThis.crypto.getRandomValues(spare);
        s = 0;
      }
      v = spare[s++]! >>> 1;
    }
    out[i] = v;
  }
};

/**
 * A deterministic source: the compat-v1 duplex challenger under `WHIR_SEED_DOMAIN_TAG`, having
 * observed the seed (a string as its UTF-8 bytes; a number as its 4 little-endian bytes), then
 * `sample()` once per element. For tests and known answers only: a known seed hides nothing.
 * @throws PcsError `PCS_BAD_OPTION` for a seed that is neither a string nor an integer in [0, 2^32).
 * @example const random = whirSeededRandomSource(7); // whirCommitHiding(f, { random })
 */
export function whirSeededRandomSource(seed: number | string): WhirRandomSource {
  let bytes: Uint8Array;
  if (typeof seed === "string") bytes = new TextEncoder().encode(seed);
  else if (Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32)
    bytes = new Uint8Array([seed & 255, (seed >>> 8) & 255, (seed >>> 16) & 255, seed >>> 24]);
  else throw new PcsError("PCS_BAD_OPTION", `a seed is a string or an integer in [0, 2^32), got ${String(seed)}`);
  const t = DuplexChallenger.withDomain(WHIR_SEED_DOMAIN_TAG);
  t.observeBytes(bytes);
  return (out) => {
    for (let i = 0; i < out.length; i++) out[i] = t.sample();
  };
}
