/**
 * The one encoding of a root: 32 bytes (8 elements, little-endian u32 each) printed as 64
 * lowercase hex characters; read back from hex, from the `[a, b, …]` / `a,b,…` list and from an
 * array; non-canonical words, wrong lengths and other text refused with `BAD_ROOT` naming the field.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { RegistryError } from "../../src/registry/errors.js";
import { formatRoot, parseRoot, rootBytes, rootFromBytes } from "../../src/registry/root.js";

const ROOT = Uint32Array.from([1, 2, 3, 0x01020304, 5, 6, 7, P - 1]);
const HEX = "01000000" + "02000000" + "03000000" + "04030201" + "05000000" + "06000000" + "07000000" + "0000007f";

const badRoot = (field: string, message?: RegExp) => (e: unknown) =>
  e instanceof RegistryError &&
  e.code === "BAD_ROOT" &&
  (e.details as { field?: string }).field === field &&
  e.message.startsWith(`${field}: `) &&
  (message === undefined || message.test(e.message));

test("formatRoot writes the 32 bytes, each element a little-endian u32, in lowercase hex", () => {
  assert.equal(formatRoot(ROOT), HEX);
  assert.equal(Buffer.from(rootBytes(ROOT)).toString("hex"), HEX);
  assert.deepEqual(Array.from(rootFromBytes(Buffer.from(HEX, "hex"))), Array.from(ROOT));
});

test("parseRoot reads the hex form and the list forms to the same root", () => {
  const want = Array.from(ROOT);
  for (const text of [HEX, HEX.toUpperCase(), ` ${HEX}\n`, `[${want.join(", ")}]`, want.join(","), want.join(" ")]) {
    assert.deepEqual(Array.from(parseRoot(text, "--root")), want, text);
  }
  assert.deepEqual(Array.from(parseRoot(want, "body.trusted_root")), want);
  assert.deepEqual(Array.from(parseRoot(ROOT, "x")), want);
});

test("hex round trip of any canonical root (property)", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: P - 1 }), { minLength: 8, maxLength: 8 }), (r) => {
      const text = formatRoot(r);
      assert.match(text, /^[0-9a-f]{64}$/);
      assert.deepEqual(Array.from(parseRoot(text)), r);
      assert.deepEqual(Array.from(parseRoot(`[${r.join(", ")}]`)), r);
    }),
    { numRuns: 200 },
  );
});

test("a hex word that is not a canonical element (≥ p) is refused, naming the option and the word", () => {
  // word 7 = 0x7f000001 = p (little-endian bytes 01 00 00 7f)
  const atP = HEX.slice(0, 56) + "0100007f";
  assert.throws(
    () => parseRoot(atP, "--root"),
    badRoot("--root", /word 7 .* is 2130706433, not a canonical field element/),
  );
  const max = HEX.slice(0, 8 * 3) + "ffffffff" + HEX.slice(32);
  assert.throws(() => parseRoot(max, "query.root"), badRoot("query.root", /word 3 /));
  assert.throws(() => rootFromBytes(new Uint8Array(32).fill(0xff), "checkpoint"), badRoot("checkpoint", /word 0 /));
});

test("wrong lengths and other text are refused with BAD_ROOT naming the field", () => {
  assert.throws(
    () => parseRoot(HEX.slice(2), "--from-root"),
    badRoot("--from-root", /64 hex characters .* got 62 characters/),
  );
  assert.throws(() => parseRoot(HEX + "00", "--root"), badRoot("--root", /got 66 characters/));
  assert.throws(() => parseRoot("1,2,3", "--root"), badRoot("--root"));
  assert.throws(() => parseRoot(`1,2,3,4,5,6,7,${P}`, "--root"), badRoot("--root", /element 7 is 2130706433/));
  assert.throws(() => parseRoot("zz" + HEX.slice(2), "body.trusted_root"), badRoot("body.trusted_root"));
  assert.throws(() => parseRoot("", "--root"), badRoot("--root"));
  assert.throws(() => parseRoot([1, 2, 3], "statement.root"), badRoot("statement.root", /8 field elements, got 3/));
  assert.throws(() => parseRoot([1, 2, 3, 4, 5, 6, 7, -1], "statement.root"), badRoot("statement.root", /element 7/));
  assert.throws(() => parseRoot(42, "statement.root"), badRoot("statement.root"));
  assert.throws(() => rootFromBytes(new Uint8Array(31), "checkpoint"), badRoot("checkpoint", /32 bytes, got 31/));
});
