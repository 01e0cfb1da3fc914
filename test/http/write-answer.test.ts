/**
 * The committed write's answer as JSON text (src/http/write-answer.ts `committedAnswerJson`, the
 * epoch's shared parts serialized once) against `JSON.stringify` of the answer object, byte for
 * byte: names that need escaping or percent-encoding, several epochs in turn, with and without a
 * signing key, and with stored checkpoints (a mirror's).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { committedAnswer, committedAnswerJson } from "../../src/http/write-answer.js";
import type { HttpContext } from "../../src/http/context.js";
import { signingKeyOfSeed } from "../../src/registry/checkpoint/signing-key.js";

const key = signingKeyOfSeed("example.org/registry", new Uint8Array(32).fill(7));
/** A root of 32 equal bytes below 0x7f (every word a canonical field element). */
const root = (i: number) => i.toString(16).padStart(2, "0").repeat(32);

const contexts: [string, HttpContext][] = [
  ["signing", { signingKey: key, checkpoints: undefined } as unknown as HttpContext],
  ["unsigned", { signingKey: undefined, checkpoints: undefined } as unknown as HttpContext],
  [
    "stored checkpoints",
    {
      signingKey: undefined,
      checkpoints: (size: number) => (size % 3 === 0 ? undefined : `origin\n${size}\n"quoted"\\ \u0001\n`),
    } as unknown as HttpContext,
  ],
];

const NAMES = [
  "left-pad",
  "@scope/pkg",
  'quote"d',
  "back\\slash",
  "ünïcödé",
  "名前",
  "emoji 🎉",
  "a&b=c?d#e",
  "tab\there",
  "x".repeat(200),
];

test("committedAnswerJson is JSON.stringify(committedAnswer(…)) byte for byte (names, ops, epochs in turn, each kind of checkpoint)", () => {
  let compared = 0;
  for (const [what, ctx] of contexts) {
    for (const batch of [1, 2, 2, 7, 3, 1_000_000]) {
      for (const [i, name] of NAMES.entries()) {
        for (const op of ["insert", "replace", "delete", "restore"] as const) {
          const r = { ok: true as const, op, batch, position: i * 3, root: root(batch % 127) };
          assert.equal(
            committedAnswerJson(ctx, name, r),
            JSON.stringify(committedAnswer(ctx, name, r)),
            `${what} ${name} ${op} ${batch}`,
          );
          compared++;
        }
      }
    }
  }
  assert.equal(compared, 3 * 6 * NAMES.length * 4);
});

test("committedAnswerJson agrees with JSON.stringify for arbitrary names, positions and roots (fast-check)", () => {
  const ctx = contexts[0]![1];
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 40, unit: "grapheme" }),
      fc.integer({ min: 1, max: 2 ** 40 }),
      fc.nat(100_000),
      fc.integer({ min: 0, max: 126 }),
      (name, batch, position, r) => {
        const result = { ok: true as const, op: "insert" as const, batch, position, root: root(r) };
        return committedAnswerJson(ctx, name, result) === JSON.stringify(committedAnswer(ctx, name, result));
      },
    ),
    { numRuns: 300 },
  );
});
