/**
 * The bearer-token check (src/http/auth.ts): the request's token hashed by node:crypto
 * (`fastDigest`) against the plain JavaScript SHA-256 (`digest`), byte for byte, on any string
 * (the header's token is visible ASCII, a token file's too; other strings hash alike as well);
 * and `BearerAuth` answering the right token, a wrong one, a longer or shorter one, and malformed
 * headers with their codes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BearerAuth, digest, fastDigest } from "../../src/http/auth.js";
import { SsgkrError } from "../../src/errors.js";

test("fastDigest: the same SHA-256 as the reference digest", () => {
  for (const s of ["", "a", "test-token-0123456789", "x".repeat(55), "x".repeat(64), "x".repeat(4096), "ünï 🎉"])
    assert.deepEqual(Uint8Array.from(fastDigest(s)), digest(s), JSON.stringify(s.slice(0, 20)));
  fc.assert(
    fc.property(fc.string({ maxLength: 300, unit: "binary" }), (s) => {
      assert.deepEqual(Uint8Array.from(fastDigest(s)), digest(s));
    }),
    { numRuns: 500 },
  );
});

const codeOf = (f: () => void): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as SsgkrError).code;
  }
};

test("BearerAuth: the right token passes; wrong, longer, shorter and malformed ones fail with their codes", () => {
  const auth = new BearerAuth("test-token-0123456789");
  assert.equal(
    codeOf(() => auth.check("Bearer test-token-0123456789")),
    undefined,
  );
  assert.equal(
    codeOf(() => auth.check("Bearer test-token-0123456788")),
    "FORBIDDEN",
  );
  assert.equal(
    codeOf(() => auth.check("Bearer test-token-01234567890")),
    "FORBIDDEN",
  );
  assert.equal(
    codeOf(() => auth.check("Bearer test-token")),
    "FORBIDDEN",
  );
  // the scheme is case-insensitive; the token is not
  for (const scheme of ["bearer", "BEARER", "bEaReR"])
    assert.equal(
      codeOf(() => auth.check(`${scheme} test-token-0123456789`)),
      undefined,
      scheme,
    );
  assert.equal(
    codeOf(() => auth.check("Bearer TEST-TOKEN-0123456789")),
    "FORBIDDEN",
  );
  assert.equal(
    codeOf(() => auth.check("Basic dGVzdA==")),
    "UNAUTHORIZED",
  );
  assert.equal(
    codeOf(() => auth.check("Bearer two words")),
    "UNAUTHORIZED",
  );
  assert.equal(
    codeOf(() => auth.check(undefined)),
    "UNAUTHORIZED",
  );
  assert.equal(
    codeOf(() => auth.check(["Bearer test-token-0123456789"])),
    "UNAUTHORIZED",
  );
  assert.equal(
    codeOf(() => new BearerAuth(undefined).check("Bearer x")),
    "READ_ONLY",
  );
  fc.assert(
    fc.property(fc.stringMatching(/^[\x21-\x7e]{1,40}$/), (t) => {
      assert.equal(
        codeOf(() => auth.check(`Bearer ${t}`)),
        t === "test-token-0123456789" ? undefined : "FORBIDDEN",
      );
      assert.equal(
        codeOf(() => new BearerAuth(t).check(`Bearer ${t}`)),
        undefined,
      );
    }),
    { numRuns: 300 },
  );
});
