/**
 * The split of a v3 input claim (src/sync/v3/input-claims.ts) against the plain MLE of the whole
 * input vector: U (`publicEvals`) equals the MLE of the K × 2^s vector holding only the public
 * halves, divided by h; the committed claims equal the committed halves' MLE at their points and
 * recombine to the input's MLE; a point with h = 1 fails exactly when its value is not U. The
 * batched statement digests equal the sponge of each statement's pre-image, and the public half
 * holds what the layout says.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type Ext, EXT_ONE, extAdd, extMul, extSub } from "../../../src/field/extension.js";
import { P } from "../../../src/field/koalabear.js";
import type { InputClaim } from "../../../src/gkr/proof.js";
import { sponge } from "../../../src/hash/digest.js";
import { evaluateMultilinear } from "../../../src/pcs/multilinear.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { type Leaf, EMPTY, TOMBSTONE, encodeLeaf, foldEncoding, limbs, occupied } from "../../../src/smt/leaf.js";
import { pathBits } from "../../../src/smt/path.js";
import { buildV3Inputs, committedHalves, v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3Layout } from "../../../src/smt/v3/layout.js";
import {
  publicHalf,
  statementDigests,
  statementDigestsOfTable,
  writePublicHalf,
  statementPreimage,
  type V3OldLeafRule,
  type V3Statement,
} from "../../../src/smt/v3/statement.js";
import { OpKind } from "../../../src/statement/types.js";
import { mleEvalBase } from "../../../src/sumcheck/mle.js";
import { committedClaims, committedPoint, publicEvals, publicTable } from "../../../src/sync/v3/input-claims.js";
import { prepareV3 } from "../../../src/sync/v3/prepared.js";
import { rng } from "../../pcs/support.js";

const DEPTH = 5;
const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;
const prepared = new Map(KINDS.map((k) => [k, prepareV3(k, { depth: DEPTH })]));
const layoutOf = (kind: OpKind): V3Layout => prepared.get(kind)!.compiled.layout;

function randomExt(next: () => number): Ext {
  return [next(), next(), next(), next()];
}

function randomPoint(n: number, next: () => number): Ext[] {
  return Array.from({ length: n }, () => randomExt(next));
}

function randomIdentity(next: () => number): Uint8Array {
  return Uint8Array.from({ length: 32 }, () => next() & 0xff);
}

function randomLeaf(next: () => number, layout: V3Layout, kinds: "occupied" | "any"): Leaf {
  const pick = kinds === "occupied" ? 1 : next() % 3;
  if (pick === 0) return EMPTY;
  if (pick === 2) return TOMBSTONE;
  const length = next() % (layout.leafMaxFields - 10 + 1);
  return occupied(
    Array.from({ length }, () => next()),
    randomIdentity(next),
  );
}

function randomRule(next: () => number): V3OldLeafRule {
  switch (next() % 4) {
    case 0:
      return { rule: "any" };
    case 1:
      return { rule: "empty" };
    case 2:
      return { rule: "tombstone" };
    default:
      return { rule: "record", identity: randomIdentity(next) };
  }
}

function randomRoot(next: () => number): Uint32Array {
  return Uint32Array.from({ length: 8 }, () => next());
}

function randomStatement(kind: OpKind, next: () => number): V3Statement {
  const layout = layoutOf(kind);
  const key = BigInt(next()) % (1n << BigInt(DEPTH));
  if (kind === OpKind.Membership)
    return {
      kind,
      root: randomRoot(next),
      key,
      leaf: randomLeaf(next, layout, "occupied") as Extract<Leaf, { tag: 1 }>,
    };
  if (kind === OpKind.NonMembership) return { kind, root: randomRoot(next), key };
  return {
    kind: OpKind.Update,
    oldRoot: randomRoot(next),
    newRoot: randomRoot(next),
    key,
    newLeaf: randomLeaf(next, layout, "any"),
    oldLeaf: randomRule(next),
  };
}

function copyBitsOf(K: number): number {
  let k = 0;
  while (2 ** k < K) k++;
  return k;
}

/** The K × 2^s vector whose copies hold their public half only (committed halves zero). */
function publicOnly(layout: V3Layout, halves: readonly Uint32Array[]): Uint32Array {
  const S = 2 ** layout.inputBits;
  const out = new Uint32Array(S * halves.length);
  halves.forEach((h, c) => out.set(h, c * S + layout.half));
  return out;
}

function withCoordinate(point: readonly Ext[], i: number, v: Ext): Ext[] {
  const out = point.slice();
  out[i] = v;
  return out;
}

const bump = (e: Ext): Ext => [(e[0] + 1) % P, e[1], e[2], e[3]];

test("publicEvals is the MLE of the public halves alone: mleEvalBase(public-only vector, z) = h·U(z), for K = 1, 2, 4, 8 and every kind", () => {
  const next = rng(11);
  for (const kind of KINDS) {
    const layout = layoutOf(kind);
    for (const K of [1, 2, 4, 8]) {
      const k = copyBitsOf(K);
      const halves = Array.from({ length: K }, () => publicHalf(layout, randomStatement(kind, next)));
      const table = publicTable(layout, halves);
      assert.equal(table.copyBits, k);
      const full = publicOnly(layout, halves);
      const points = Array.from({ length: 3 }, () => randomPoint(k + layout.inputBits, next));
      // h = 1 reads the public half itself; h = 0 must not matter to U
      points.push(withCoordinate(points[0]!, k, EXT_ONE), withCoordinate(points[1]!, k, [0, 0, 0, 0]));
      const us = publicEvals(layout, table, points);
      points.forEach((z, q) => {
        const want = mleEvalBase(full, z);
        assert.deepEqual(extMul(z[k]!, us[q]!), want, `${kind} K = ${K} point ${q}`);
        if (q === 3) assert.deepEqual(us[q], want, `${kind} K = ${K}: U at h = 1 is the vector's MLE`);
      });
      // U does not read coordinate k
      const moved = withCoordinate(points[2]!, k, randomExt(next));
      assert.deepEqual(publicEvals(layout, table, [moved])[0], us[2]);
    }
  }
});

/** Honest inputs of K copies of a kind, with their statements. */
function honestInput(
  kind: OpKind,
  K: number,
): { input: Uint32Array; statements: V3Statement[]; halves: Uint32Array[] } {
  const layout = layoutOf(kind);
  const requests = Array.from({ length: K }, (_, i) => goldenFixture(kind, DEPTH, BigInt(3 * i + 1)));
  // the golden update's old leaf is a record of identity 0x03: alternate its rules so the selector lanes are used
  const rules: V3OldLeafRule[] = requests.map((_, i) =>
    i % 2 === 0 ? { rule: "record", identity: new Uint8Array(32).fill(3) } : { rule: "any" },
  );
  const statements = requests.map((r, i) => v3StatementOf(r, rules[i]));
  const input = buildV3Inputs(layout, requests, statements);
  return { input, statements, halves: statements.map((s) => publicHalf(layout, s)) };
}

function claimAt(input: Uint32Array, x: Ext[], y: Ext[]): InputClaim {
  return { x, evalX: mleEvalBase(input, x), y, evalY: mleEvalBase(input, y) };
}

test("committedClaims: for an honest input its claims are the committed halves' MLE at their points, and (1 − h)·C + h·U is the input's MLE", () => {
  const next = rng(23);
  for (const kind of KINDS) {
    const layout = layoutOf(kind);
    for (const K of [1, 2, 4, 8]) {
      const k = copyBitsOf(K);
      const { input, halves } = honestInput(kind, K);
      const C = committedHalves(layout, input);
      assert.equal(C.length, K * layout.half);
      const table = publicTable(layout, halves);
      for (let trial = 0; trial < 2; trial++) {
        const claim = claimAt(input, randomPoint(k + layout.inputBits, next), randomPoint(k + layout.inputBits, next));
        const [ux, uy] = publicEvals(layout, table, [claim.x, claim.y]);
        const split = committedClaims(k, claim, ux!, uy!);
        assert.ok("claims" in split, `${kind} K = ${K}`);
        if (!("claims" in split)) continue;
        assert.equal(split.claims.length, 2);
        [
          [claim.x, claim.evalX, ux!],
          [claim.y, claim.evalY, uy!],
        ].forEach(([point, value, u], j) => {
          const pt = point as Ext[];
          const c = split.claims[j]!;
          assert.deepEqual(c.point, committedPoint(k, pt));
          assert.equal(c.point.length, k + layout.inputBits - 1);
          assert.deepEqual(c.value, evaluateMultilinear(C, c.point), `${kind} K = ${K} claim ${j}: C at its point`);
          const h = pt[k]!;
          assert.deepEqual(
            extAdd(extMul(extSub(EXT_ONE, h), c.value), extMul(h, u as Ext)),
            value,
            `${kind} K = ${K} claim ${j}: recombined`,
          );
        });
      }
    }
  }
});

test("committedClaims at h = 1: no claim about C, and a failure exactly when the value is not U", () => {
  const next = rng(37);
  for (const kind of KINDS) {
    const layout = layoutOf(kind);
    for (const K of [1, 4]) {
      const k = copyBitsOf(K);
      const { input, halves } = honestInput(kind, K);
      const table = publicTable(layout, halves);
      const n = k + layout.inputBits;
      const x = withCoordinate(randomPoint(n, next), k, EXT_ONE);
      const y = randomPoint(n, next);
      const honest = claimAt(input, x, y);
      const [ux, uy] = publicEvals(layout, table, [honest.x, honest.y]);
      // x at h = 1 true: only y's claim remains
      const a = committedClaims(k, honest, ux!, uy!);
      assert.ok("claims" in a && a.claims.length === 1, `${kind} K = ${K}`);
      if ("claims" in a) assert.deepEqual(a.claims[0]!.point, committedPoint(k, y));
      // x at h = 1 false: fails at x, whatever y says
      assert.deepEqual(committedClaims(k, { ...honest, evalX: bump(honest.evalX) }, ux!, uy!), { fails: "x" });
      assert.deepEqual(
        committedClaims(k, { ...honest, evalX: bump(honest.evalX), evalY: bump(honest.evalY) }, ux!, uy!),
        { fails: "x" },
      );
      // y at h = 1: the same for y
      const both = claimAt(input, x, withCoordinate(y, k, EXT_ONE));
      const [bx, by] = publicEvals(layout, table, [both.x, both.y]);
      assert.deepEqual(committedClaims(k, both, bx!, by!), { claims: [] });
      assert.deepEqual(committedClaims(k, { ...both, evalY: bump(both.evalY) }, bx!, by!), { fails: "y" });
      const yOnly = claimAt(input, y, withCoordinate(y, k, EXT_ONE));
      const [yx, yy] = publicEvals(layout, table, [yOnly.x, yOnly.y]);
      assert.deepEqual(committedClaims(k, { ...yOnly, evalY: bump(yOnly.evalY) }, yx!, yy!), { fails: "y" });
      const ok = committedClaims(k, yOnly, yx!, yy!);
      assert.ok("claims" in ok && ok.claims.length === 1 && ok.claims[0]!.point.length === n - 1);
      // h = 1 means all four limbs of 1 − h are zero: an h that shares limbs with 1 (1 − h with zero limbs) is an
      // ordinary point whose claim about C is made, and so is h = 0 (the committed half itself)
      for (const hv of [
        [1, 7, 0, 0],
        [1, 0, 0, 5],
        [0, 0, 0, 0],
        [2, 0, 0, 0],
      ] as Ext[]) {
        const c = claimAt(input, withCoordinate(x, k, hv), y);
        const [cx, cy] = publicEvals(layout, table, [c.x, c.y]);
        const r = committedClaims(k, c, cx!, cy!);
        assert.ok("claims" in r && r.claims.length === 2, `h = [${hv.join(", ")}]: two claims, no direct comparison`);
      }
      const zeroH = claimAt(input, withCoordinate(x, k, [0, 0, 0, 0]), y);
      const [zx, zy] = publicEvals(layout, table, [zeroH.x, zeroH.y]);
      const z = committedClaims(k, zeroH, zx!, zy!);
      assert.ok("claims" in z);
      if ("claims" in z)
        assert.deepEqual(z.claims[0]!.value, zeroH.evalX, "at h = 0 the claim about C is the value itself");
      // a wrong value at h ≠ 1 is no failure here: it becomes a wrong claim about C (the opening refuses it)
      const wrong = committedClaims(k, { ...honest, evalY: bump(honest.evalY) }, ux!, uy!);
      assert.ok("claims" in wrong && wrong.claims.length === 1);
      if ("claims" in wrong && "claims" in a) assert.notDeepEqual(wrong.claims[0]!.value, a.claims[0]!.value);
    }
  }
});

test("statementDigests equals sponge(statementPreimage(…)) per statement, for every kind and rule, random keys and leaves", () => {
  const next = rng(41);
  for (const kind of KINDS) {
    for (const depth of [4, 8, 40]) {
      for (const leafMaxFields of [10, 31]) {
        const layout = prepareV3(kind, { depth, leafMaxFields }).compiled.layout;
        const statements = Array.from({ length: 9 }, (_, i) => {
          const base = randomStatement(kind, next);
          const key = ((BigInt(next()) << 20n) | BigInt(next())) % (1n << BigInt(depth));
          const st = { ...base, key } as V3Statement;
          if (st.kind === OpKind.Membership)
            return { ...st, leaf: randomLeaf(next, layout, "occupied") } as V3Statement;
          if (st.kind === OpKind.Update)
            return {
              ...st,
              newLeaf: randomLeaf(next, layout, "any"),
              oldLeaf: [
                { rule: "any" },
                { rule: "empty" },
                { rule: "tombstone" },
                { rule: "record", identity: randomIdentity(next) },
              ][i % 4],
            } as V3Statement;
          return st;
        });
        const halves = statements.map((s) => publicHalf(layout, s));
        const digests = statementDigests(
          layout,
          statements.map((s) => s.key),
          halves,
        );
        assert.equal(digests.length, 8 * statements.length);
        // the verifier's path: halves written at a stride into one table (as the public table), digests from it
        const stride = 2 ** Math.ceil(Math.log2(layout.publicUsed)) + 3;
        const table = new Uint32Array(stride * statements.length + 5);
        statements.forEach((s, i) => writePublicHalf(layout, s, table, i * stride));
        statements.forEach((s, i) =>
          assert.deepEqual(
            table.subarray(i * stride, i * stride + layout.publicUsed),
            halves[i],
            `${kind} depth ${depth}: writePublicHalf at ${i * stride}`,
          ),
        );
        assert.ok(
          table.every((v, j) => j % stride < layout.publicUsed || v === 0),
          "nothing written past a half",
        );
        assert.deepEqual(
          statementDigestsOfTable(
            layout,
            statements.map((s) => s.key),
            table,
            stride,
          ),
          digests,
          `${kind} depth ${depth} B ${leafMaxFields}: digests from the table`,
        );
        statements.forEach((s, i) => {
          assert.deepEqual(
            digests.subarray(8 * i, 8 * i + 8),
            sponge(statementPreimage(layout, s)),
            `${kind} depth ${depth} B ${leafMaxFields} statement ${i}`,
          );
        });
        // distinct statements, distinct digests; the key's bits above the depth are not in the pre-image
        const set = new Set(statements.map((_, i) => Array.from(digests.subarray(8 * i, 8 * i + 8)).join(",")));
        assert.equal(set.size, new Set(statements.map((s) => Array.from(statementPreimage(layout, s)).join(","))).size);
      }
    }
  }
});

test("publicHalf lays out the key bits (leaf level first, past 32 bits too), the roots, the public pre-image and the rule lanes", () => {
  const next = rng(53);
  for (const depth of [5, 33, 64]) {
    for (const kind of KINDS) {
      const layout = prepareV3(kind, { depth }).compiled.layout;
      const h = layout.half;
      for (let trial = 0; trial < 4; trial++) {
        const key = ((BigInt(next()) << 33n) ^ (BigInt(next()) << 2n) ^ BigInt(trial)) % (1n << BigInt(depth));
        const st = { ...randomStatement(kind, next), key } as V3Statement;
        const half = publicHalf(layout, st);
        assert.equal(half.length, layout.publicUsed);
        assert.deepEqual(
          Array.from(half.subarray(layout.keyBits - h, layout.keyBits - h + depth)),
          pathBits(key, depth),
          `${kind} depth ${depth} key bits`,
        );
        const roots = st.kind === OpKind.Update ? [st.oldRoot, st.newRoot] : [st.root];
        roots.forEach((r, t) =>
          assert.deepEqual(
            half.subarray(layout.roots - h + 8 * t, layout.roots - h + 8 * t + 8),
            Uint32Array.from(r),
            `${kind} root ${t}`,
          ),
        );
        const leaf = st.kind === OpKind.Membership ? st.leaf : st.kind === OpKind.Update ? st.newLeaf : null;
        const t = layout.prePublic.indexOf(true);
        if (leaf !== null)
          assert.deepEqual(
            half.subarray(layout.preOf[t]! - h, layout.preOf[t]! - h + layout.foldWidth),
            foldEncoding(encodeLeaf(leaf), layout.leafMaxFields),
          );
        else assert.equal(t, -1, "non-membership has no public pre-image");
        if (st.kind === OpKind.Update) {
          const lanes = Array.from(half.subarray(layout.rule - h, layout.rule - h + 12));
          const rule = st.oldLeaf;
          const want = new Array<number>(12).fill(0);
          if (rule.rule === "empty") want.splice(0, 2, 1, 0);
          if (rule.rule === "tombstone") want.splice(0, 2, 1, 2);
          if (rule.rule === "record") want.splice(2, 10, 1, ...limbs(rule.identity));
          assert.deepEqual(lanes, want, `rule ${rule.rule}`);
          assert.equal(layout.rule - h + 12, layout.publicUsed, "the rule lanes end the public half");
        }
      }
    }
  }
  // the kind, the key range and the rule are checked
  const layout = layoutOf(OpKind.Update);
  const st = randomStatement(OpKind.Update, next) as Extract<V3Statement, { kind: OpKind.Update }>;
  const code = (s: unknown) => {
    try {
      publicHalf(layout, s as V3Statement);
    } catch (e) {
      return (e as { code: string }).code;
    }
    return "ok";
  };
  assert.equal(code(st), "ok");
  assert.equal(code({ ...st, kind: OpKind.Membership }), "OP_KIND_MISMATCH");
  assert.equal(code(null), "OP_KIND_MISMATCH");
  assert.equal(code({ ...st, key: 1n << BigInt(DEPTH) }), "KEY_OUT_OF_RANGE");
  assert.equal(code({ ...st, oldLeaf: { rule: "some" } }), "BAD_LEAF");
  assert.equal(code({ ...st, oldLeaf: null }), "BAD_LEAF");
  assert.equal(code({ ...st, oldLeaf: { rule: "record", identity: new Uint8Array(31) } }), "BAD_LEAF");
  assert.equal(code(undefined), "OP_KIND_MISMATCH");
  const m = layoutOf(OpKind.Membership);
  const ms = randomStatement(OpKind.Membership, next);
  try {
    publicHalf(m, { ...ms, leaf: TOMBSTONE } as unknown as V3Statement);
    assert.fail("a membership statement of a Tombstone");
  } catch (e) {
    assert.equal((e as { code: string }).code, "BAD_LEAF");
  }
});
