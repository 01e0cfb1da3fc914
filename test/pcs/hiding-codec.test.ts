/**
 * The bytes of the hiding commitment and masked opening (docs/pcs.md §12.5): known answers for
 * fixed vectors, claims and seeds (test/vectors/pcs-whir-hiding.json: the commitment's hex and
 * the proof's length, compat-v1 sponge and SHA-256; `UPDATE_PCS_VECTORS=1` rewrites it after an intended
 * change of §12), the strict decoders' refusals, and fuzzing: random bytes and mutations of a
 * valid proof are always a `PCS_DECODE` error or a failed verdict, never a crash or an acceptance.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { extAdd, extMul, type Ext } from "../../src/field/extension.js";
import { P } from "../../src/field/koalabear.js";
import { sponge } from "../../src/hash/digest.js";
import {
  PcsError,
  decodeWhirHidingCommitment,
  decodeWhirHidingProof,
  encodeWhirHidingCommitment,
  whirCommitHiding,
  whirOpenHiding,
  whirSeededRandomSource,
  whirVerifyHiding,
  WHIR_HIDING_COMMITMENT_MAGIC,
  WHIR_HIDING_PROOF_MAGIC,
  evaluateMultilinear,
  type WhirAnyClaim,
  type WhirClaim,
  type WhirHidingLayout,
  type WhirSetId,
} from "../../src/pcs/index.js";
import { randomEvaluations, rng, twoClaims } from "./support.js";

interface Vector {
  readonly set: WhirSetId;
  /** Present for the layout "top-block" only (the entries without it are "extra-variable"). */
  readonly layout?: WhirHidingLayout;
  readonly numVariables: number;
  readonly seed: number;
  readonly randomSeed: string;
  readonly claims: string;
  readonly commitmentHex: string;
  readonly proofBytes: number;
  readonly proofDigest: number[];
  /** SHA-256 of the proof bytes, hex. */
  readonly proofSha256: string;
}

const FILE = join(process.cwd(), "test", "vectors", "pcs-whir-hiding.json");
const CASES: readonly [WhirSetId, number, number, "points" | "mixed", WhirHidingLayout?][] = [
  ["cb100-r4", 11, 1, "points"],
  ["cb100-r4", 13, 2, "mixed"],
  ["cb100-r2", 12, 3, "mixed"],
  ["ud100-r4", 12, 4, "points"],
  ["cb100-r4-s3", 16, 5, "mixed"],
  ["cb100-r4-s3", 14, 6, "mixed", "top-block"],
  ["ud100-r4-s3", 13, 7, "points", "top-block"],
];

/** The points of `twoClaims`, with their last coordinate 0 in the layout "top-block" (so that they do not weigh τ's block). */
function pointClaims(f: Uint32Array, m: number, seed: number, layout: WhirHidingLayout): WhirAnyClaim[] {
  const points = twoClaims(f, m, seed);
  if (layout === "extra-variable") return points;
  return points.map((c) => {
    const point = (c as WhirClaim).point.map((x, j) => (j === m - 1 ? ([0, 0, 0, 0] as Ext) : x));
    return { point, value: evaluateMultilinear(f, point) };
  });
}

function claimsFor(
  f: Uint32Array,
  m: number,
  seed: number,
  kind: "points" | "mixed",
  layout: WhirHidingLayout = "extra-variable",
): WhirAnyClaim[] {
  const points = pointClaims(f, m, seed, layout);
  if (kind === "points") return points;
  const next = rng(seed + 1000);
  const weights = Array.from({ length: 8 }, () => [next(), next(), next(), next()] as Ext);
  let value: Ext = [0, 0, 0, 0];
  weights.forEach((w, i) => {
    value = extAdd(value, extMul(w, [f[16 + i]!, 0, 0, 0]));
  });
  return [points[0]!, { block: { offset: 16, weights }, value }, points[1]!];
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

function compute(
  set: WhirSetId,
  m: number,
  seed: number,
  kind: "points" | "mixed",
  layout: WhirHidingLayout = "extra-variable",
): Vector {
  const f = randomEvaluations(m, seed);
  const randomSeed = `pcs-whir-hiding vector ${seed}`;
  const committed = whirCommitHiding(f, { set, layout, random: whirSeededRandomSource(randomSeed) });
  const claims = claimsFor(f, m, seed, kind, layout);
  const proof = whirOpenHiding(committed, claims);
  assert.deepEqual(whirVerifyHiding(committed.commitment, claims, proof, { alsoAccept: [set] }), { ok: true });
  const words = new Uint32Array(proof.buffer, proof.byteOffset, proof.length / 4);
  return {
    set,
    ...(layout === "top-block" ? { layout } : {}),
    numVariables: m,
    seed,
    randomSeed,
    claims: kind,
    commitmentHex: hex(encodeWhirHidingCommitment(committed.commitment)),
    proofBytes: proof.length,
    proofDigest: [...sponge(words)],
    proofSha256: createHash("sha256").update(proof).digest("hex"),
  };
}

test("hiding commitments and masked openings match the checked-in known answers", () => {
  const got = CASES.map(([set, m, seed, kind, layout]) => compute(set, m, seed, kind, layout));
  if (process.env.UPDATE_PCS_VECTORS === "1") writeFileSync(FILE, `${JSON.stringify(got, null, 2)}\n`);
  const expected = JSON.parse(readFileSync(FILE, "utf8")) as Vector[];
  assert.deepEqual(got, expected);
});

// One valid commitment and proof for the decoder tests.
const M = 11;
const F = randomEvaluations(M, 31);
const COMMITTED = whirCommitHiding(F, { random: whirSeededRandomSource(31) });
const COMMITMENT = encodeWhirHidingCommitment(COMMITTED.commitment);
const CLAIMS = claimsFor(F, M, 31, "mixed");
const PROOF = whirOpenHiding(COMMITTED, CLAIMS);

function words(bytes: Uint8Array): Uint32Array {
  return new Uint32Array(bytes.slice().buffer);
}
function bytesOf(w: Uint32Array): Uint8Array {
  return new Uint8Array(w.buffer.slice(0));
}
function decodeError(fn: () => unknown, what: string, field?: string): void {
  assert.throws(
    fn,
    (e: unknown) =>
      e instanceof PcsError && e.code === "PCS_DECODE" && (field === undefined || e.message.includes(field)),
    what,
  );
}

test("the hiding commitment decoder refuses wrong magic, set, size, width code, non-canonical roots, truncation and trailing bytes", () => {
  assert.deepEqual(decodeWhirHidingCommitment(COMMITMENT), COMMITTED.commitment);
  const at = (i: number, v: number) => {
    const w = words(COMMITMENT);
    w[i] = v;
    return bytesOf(w);
  };
  decodeError(() => decodeWhirHidingCommitment(at(0, WHIR_HIDING_PROOF_MAGIC)), "magic");
  decodeError(() => decodeWhirHidingCommitment(at(1, 99)), "set code");
  decodeError(() => decodeWhirHidingCommitment(at(2, 11)), "m + 1 = 11: m = 10 is below the least hiding size");
  decodeError(() => decodeWhirHidingCommitment(at(2, 23)), "m + 1 above the set's limit");
  for (const width of [1, 4, 7]) decodeError(() => decodeWhirHidingCommitment(at(3, width)), `width ${width}`);
  // Width code 6 is the layout "top-block", whose n is m: 12 variables decode (the default set's
  // least), 11 are too few for τ's block to fit in f's upper half, 23 above the set's limit.
  assert.deepEqual(decodeWhirHidingCommitment(at(3, 6)), {
    ...COMMITTED.commitment,
    numVariables: 12,
    layout: "top-block",
  });
  const top = (n: number) => {
    const w = words(COMMITMENT);
    w[2] = n;
    w[3] = 6;
    return bytesOf(w);
  };
  decodeError(() => decodeWhirHidingCommitment(top(11)), "top-block with m = 11, below its least size");
  decodeError(() => decodeWhirHidingCommitment(top(23)), "top-block above the set's limit");
  decodeError(() => decodeWhirHidingCommitment(at(7, P)), "a non-canonical root word");
  decodeError(() => decodeWhirHidingCommitment(COMMITMENT.subarray(0, 44)), "truncated");
  decodeError(() => decodeWhirHidingCommitment(new Uint8Array([...COMMITMENT, 0, 0, 0, 0])), "trailing word");
  decodeError(() => decodeWhirHidingCommitment(COMMITMENT.subarray(0, 47)), "not whole words");
  decodeError(() => decodeWhirHidingCommitment("abcd" as never), "not bytes");
});

test("the masked-opening decoder refuses wrong magic, width code, claim counts, non-canonical words, truncation and trailing bytes", () => {
  const decoded = decodeWhirHidingProof(PROOF);
  assert.equal(decoded.maskedValues.length, 3);
  const at = (i: number, v: number) => {
    const w = words(PROOF);
    w[i] = v;
    return bytesOf(w);
  };
  decodeError(() => decodeWhirHidingProof(at(0, WHIR_HIDING_COMMITMENT_MAGIC)), "magic");
  decodeError(() => decodeWhirHidingProof(at(3, 4)), "width code 4");
  decodeError(() => decodeWhirHidingProof(at(4, 0)), "claim count 0", "claimCount");
  decodeError(() => decodeWhirHidingProof(at(4, 0xffffffff)), "claim count beyond the bytes", "claimCount");
  // A proof with no σ′ at all, laid out consistently (count 0, the σ′ words removed), is refused too.
  const w = [...words(PROOF)];
  w.splice(4, 13, 0);
  decodeError(() => decodeWhirHidingProof(bytesOf(Uint32Array.from(w))), "no claim", "claimCount");
  decodeError(() => decodeWhirHidingProof(at(4, 4)), "a claim count that shifts the layout");
  decodeError(() => decodeWhirHidingProof(at(6, P)), "a non-canonical σ′ word");
  decodeError(() => decodeWhirHidingProof(PROOF.subarray(0, PROOF.length - 4)), "truncated");
  decodeError(() => decodeWhirHidingProof(new Uint8Array([...PROOF, 1, 0, 0, 0])), "trailing word");
  decodeError(() => decodeWhirHidingProof(PROOF.subarray(0, PROOF.length - 1)), "not whole words");
  decodeError(() => decodeWhirHidingProof("abcd" as never), "not bytes");
  // The verifier turns each into a PCS_DECODE verdict.
  const v = whirVerifyHiding(COMMITTED.commitment, CLAIMS, at(4, 0));
  assert.equal(!v.ok && v.code, "PCS_DECODE");
});

test("fuzz: random bytes never crash the decoders or the verifier", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 800 }), (bytes) => {
      for (const decode of [decodeWhirHidingProof, decodeWhirHidingCommitment]) {
        try {
          decode(bytes);
        } catch (e) {
          assert.ok(e instanceof PcsError && e.code === "PCS_DECODE", String(e));
        }
      }
      assert.equal(whirVerifyHiding(COMMITTED.commitment, CLAIMS, bytes).ok, false);
    }),
    { numRuns: 300, seed: 11 },
  );
  // Bytes behind a valid header, so that decoding goes past the first words.
  const header = PROOF.subarray(0, 20);
  fc.assert(
    fc.property(fc.uint32Array({ maxLength: 3000 }), (tail) => {
      const bytes = new Uint8Array([...header, ...new Uint8Array(tail.buffer)]);
      try {
        decodeWhirHidingProof(bytes);
      } catch (e) {
        assert.ok(e instanceof PcsError && e.code === "PCS_DECODE", String(e));
      }
      assert.equal(whirVerifyHiding(COMMITTED.commitment, CLAIMS, bytes).ok, false);
    }),
    { numRuns: 100, seed: 12 },
  );
});

test("fuzz: every mutation of a valid masked opening (bit flips, word changes, cuts, insertions) is rejected", () => {
  assert.deepEqual(whirVerifyHiding(COMMITTED.commitment, CLAIMS, PROOF), { ok: true });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.record({ kind: fc.constant("flip"), at: fc.nat(PROOF.length - 1), v: fc.integer({ min: 0, max: 7 }) }),
        fc.record({ kind: fc.constant("word"), at: fc.nat(PROOF.length / 4 - 1), v: fc.nat(P - 1) }),
        fc.record({ kind: fc.constant("cut"), at: fc.nat(PROOF.length - 1), v: fc.constant(0) }),
        fc.record({ kind: fc.constant("insert"), at: fc.nat(PROOF.length / 4), v: fc.nat(P - 1) }),
      ),
      ({ kind, at, v }) => {
        let bytes: Uint8Array;
        if (kind === "flip") {
          bytes = PROOF.slice();
          bytes[at] = bytes[at]! ^ (1 << v);
        } else if (kind === "word") {
          const w = words(PROOF);
          if (w[at] === v) return;
          w[at] = v;
          bytes = bytesOf(w);
        } else if (kind === "cut") bytes = PROOF.subarray(0, at);
        else {
          const w = [...words(PROOF)];
          w.splice(at, 0, v);
          bytes = bytesOf(Uint32Array.from(w));
        }
        const verdict = whirVerifyHiding(COMMITTED.commitment, CLAIMS, bytes);
        assert.equal(verdict.ok, false, `${kind} at ${at}`);
      },
    ),
    { numRuns: 300, seed: 13 },
  );
});
