/**
 * The input-claim discharge (src/gkr/input-claim.ts, compat-v1 §13.2 step 10) and GKR verifier
 * checks (src/gkr/verifier.ts) against forgeries that only the targeted check catches.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, extAdd, type Ext } from "../../src/field/extension.js";
import { checkInputClaim } from "../../src/gkr/input-claim.js";
import type { InputClaim } from "../../src/gkr/proof.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";

const pt = (...cs: number[]): Ext[] => cs.map((c) => [c, c + 1, 2 * c + 3, 7] as Ext);

function claimFor(input: ArrayLike<number>, n: number): InputClaim {
  const padded = new Uint32Array(2 ** n);
  padded.set(Array.from(input));
  const x = pt(...Array.from({ length: n }, (_, i) => 11 + i));
  const y = pt(...Array.from({ length: n }, (_, i) => 101 + 3 * i));
  return { x, evalX: mleEvalBase(padded, x), y, evalY: mleEvalBase(padded, y) };
}

test("an honest claim holds, with the input zero-padded to 2^len(x*)", () => {
  const input = [3, 1, 4, 1, 5];
  assert.equal(checkInputClaim(input, claimFor(input, 3)), true);
  assert.equal(checkInputClaim(Uint32Array.from(input), claimFor(input, 4)), true);
  assert.equal(checkInputClaim([7, 8, 9, 10], claimFor([7, 8, 9, 10], 2)), true);
  assert.equal(checkInputClaim([], claimFor([], 0)), true);
  assert.equal(checkInputClaim([P - 1], claimFor([P - 1], 0)), true);
});

test("eval_x or eval_y of another input is rejected, each on its own", () => {
  const input = [3, 1, 4, 1, 5, 9, 2, 6];
  const other = [3, 1, 4, 1, 5, 9, 2, 7];
  const good = claimFor(input, 3);
  const bad = claimFor(other, 3);
  assert.equal(checkInputClaim(input, { ...good, evalX: bad.evalX }), false);
  assert.equal(checkInputClaim(input, { ...good, evalY: bad.evalY }), false);
  assert.equal(checkInputClaim(input, { ...good, evalY: extAdd(good.evalY, EXT_ONE) }), false);
  // The claims of the other input hold for it and not for this one.
  assert.equal(checkInputClaim(other, bad), true);
  assert.equal(checkInputClaim(input, bad), false);
});

test("mismatched point lengths, oversized inputs and non-canonical values are false, never exceptions", () => {
  const input = [1, 2, 3, 4];
  const good = claimFor(input, 2);
  assert.equal(checkInputClaim(input, { ...good, y: good.y.slice(1) }), false);
  assert.equal(checkInputClaim(input, { ...good, y: [...good.y, good.y[0]!] }), false);
  assert.equal(checkInputClaim([1, 2, 3, 4, 5], good), false, "longer than 2^n");
  assert.equal(checkInputClaim([1, 2, 3, P], { ...good }), false);
  assert.equal(checkInputClaim([1, 2, -1, 4], good), false);
  assert.equal(checkInputClaim([1, 2, 3.5, 4], good), false);
  // More than 30 variables is refused before anything is allocated.
  const wide: InputClaim = { x: pt(...new Array(31).fill(1)), y: pt(...new Array(31).fill(2)), evalX: [0, 0, 0, 0], evalY: [0, 0, 0, 0] };
  assert.equal(checkInputClaim([], wide), false);
  // An input of exactly 2^n values needs no padding.
  assert.equal(checkInputClaim([0], claimFor([], 0)), true);
});
