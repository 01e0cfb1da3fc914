/**
 * The checked row reads without a subarray or a row name (row-seal.ts `sealedLength`,
 * name-rows.ts `canonicalDigest` and `leafRowDigest`'s sound-row path) against the plain reads
 * (`unseal`, `readDigest`, `checkLeafValue`): the same values on sound rows; on damaged, short
 * or non-canonical rows the fast check declines and the plain read names the damage.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { RegistryError } from "../../src/registry/errors.js";
import { seal, sealedLength, unseal } from "../../src/registry/store/row-seal.js";
import {
  CREATED_BYTES,
  T_BRANCH,
  T_LEAF,
  branchKey,
  canonicalDigest,
  leafKey,
  leafRowDigest,
  readDigest,
} from "../../src/registry/store/name-rows.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const corrupt = (e: unknown) => e instanceof RegistryError && e.code === "DB_CORRUPT";

function digestBytes(words: readonly number[]): Buffer {
  const b = Buffer.alloc(32);
  words.forEach((w, k) => b.writeUInt32LE(w, 4 * k));
  return b;
}

test("sealedLength and canonicalDigest equal unseal and readDigest on sound branch rows, and decline damaged or non-canonical ones", () => {
  const rand = rng(5);
  for (let i = 0; i < 300; i++) {
    const h = 1 + Math.floor(rand() * 48);
    const p = Math.floor(rand() * 2 ** (48 - h));
    const key = branchKey(h, p);
    const words = Array.from({ length: 8 }, () => Math.floor(rand() * P));
    const row = seal(T_BRANCH, key, digestBytes(words));
    assert.equal(sealedLength(T_BRANCH, key, row), unseal(T_BRANCH, key, row, "row").length);
    assert.deepEqual(
      Array.from(canonicalDigest(row, 0)!),
      Array.from(readDigest(unseal(T_BRANCH, key, row, "row"), 0, "row")),
    );
    assert.deepEqual(Array.from(canonicalDigest(row, 0)!), words);
    // a flipped bit anywhere, another table's tag or another key: declined, and unseal names it
    const bad = Buffer.from(row);
    const bit = Math.floor(rand() * 8 * bad.length);
    bad[bit >> 3]! ^= 1 << (bit & 7);
    assert.equal(sealedLength(T_BRANCH, key, bad), -1);
    assert.throws(() => unseal(T_BRANCH, key, bad, "row"), corrupt);
    assert.equal(sealedLength(T_LEAF, key, row), -1);
    assert.equal(sealedLength(T_BRANCH, branchKey(h, p ^ 1), row), -1);
  }
  assert.equal(sealedLength(T_BRANCH, branchKey(1, 0), new Uint8Array(3)), -1);
  // a word ≥ P under a sound seal: declined by canonicalDigest, named by readDigest
  const key = branchKey(3, 5);
  const row = seal(T_BRANCH, key, digestBytes([1, 2, 3, P, 5, 6, 7, 8]));
  assert.equal(sealedLength(T_BRANCH, key, row), 32);
  assert.equal(canonicalDigest(row, 0), undefined);
  assert.throws(() => readDigest(row, 0, "branch row x"), corrupt);
});

test("leafRowDigest reads a sound leaf row's digest as the plain read does, and names a damaged, short or non-canonical row", () => {
  const rand = rng(9);
  for (let i = 0; i < 200; i++) {
    const k = Math.floor(rand() * 2 ** 48);
    const key = leafKey(k);
    const recordRow = Buffer.from(Array.from({ length: 4 + Math.floor(rand() * 60) }, () => Math.floor(rand() * 256)));
    const words = Array.from({ length: 8 }, () => Math.floor(rand() * P));
    const created = Buffer.alloc(CREATED_BYTES);
    created.writeUInt32LE(Math.floor(rand() * 1000));
    const row = seal(T_LEAF, key, Buffer.concat([recordRow, digestBytes(words), created]));
    const v = unseal(T_LEAF, key, row, "leaf");
    assert.deepEqual(
      Array.from(leafRowDigest(key, row, k)),
      Array.from(readDigest(v, v.length - CREATED_BYTES - 32, "leaf")),
    );
    assert.deepEqual(Array.from(leafRowDigest(key, row, k)), words);
    const bad = Buffer.from(row);
    bad[Math.floor(rand() * bad.length)]! ^= 0x10;
    assert.throws(
      () => leafRowDigest(key, bad, k),
      (e: unknown) => corrupt(e) && (e as Error).message.includes(`leaf row of key ${k}`),
    );
  }
  const key = leafKey(77);
  // too short for a record row, a digest and its batch
  const short = seal(T_LEAF, key, Buffer.alloc(32 + CREATED_BYTES + 3));
  assert.throws(
    () => leafRowDigest(key, short, 77),
    (e: unknown) => corrupt(e) && /too short/.test((e as Error).message),
  );
  // a non-canonical digest word
  const big = seal(
    T_LEAF,
    key,
    Buffer.concat([Buffer.alloc(6), digestBytes([P + 1, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(4)]),
  );
  assert.throws(
    () => leafRowDigest(key, big, 77),
    (e: unknown) => corrupt(e) && /non-canonical/.test((e as Error).message),
  );
});
