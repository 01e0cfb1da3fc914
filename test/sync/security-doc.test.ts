import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { shapeOf } from "../../src/gkr/shape.js";
import { gkrSoundnessBound, LOG2_CHALLENGE_FIELD } from "../../src/gkr/soundness.js";
import { compile } from "../../src/smt/compile.js";
import { OP_KIND_NAMES, OpKind } from "../../src/statement/types.js";
import { maxProofBytes, MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS } from "../../src/sync/limits.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const doc = readFileSync(join(root, "docs", "security.md"), "utf8");
const flat = doc.replace(/\s+/g, " ");
const readme = readFileSync(join(root, "README.md"), "utf8");
const num = (s: string) => Number(s.replace(/,/g, ""));

test("docs/security.md: the soundness table is what the compiled circuits give", () => {
  const rows = [
    ...doc.matchAll(/^\| d(\d+), B (\d+) \| (\w+) \| (\d+) \| (\d+) \| ([\d,]+) \| ([\d,]+) \| 2\^−([\d.]+) \|$/gm),
  ];
  assert.ok(rows.length >= 6, "the table has its rows");
  let worst = -Infinity;
  for (const [, d, B, kind, layers, outBits, rounds, numerator, log2] of rows) {
    const k = kind as OpKind;
    assert.ok(OP_KIND_NAMES.includes(k), kind);
    const b = gkrSoundnessBound(shapeOf(compile(k, { depth: Number(d), leafMaxFields: Number(B) }).circuit));
    assert.deepEqual(
      [b.layers, b.outputBits, b.rounds, b.numerator],
      [num(layers!), num(outBits!), num(rounds!), num(numerator!)],
      `d${d} B${B} ${kind}`,
    );
    assert.equal((-b.log2Error).toFixed(1), log2, `d${d} B${B} ${kind}`);
    worst = Math.max(worst, b.log2Error);
  }
  // The largest accepted configuration is in the table and the stated overall bound holds.
  assert.ok(
    rows.some(
      (r) => Number(r[1]) === MAX_CONFIG_DEPTH && Number(r[2]) === MAX_CONFIG_LEAF_MAX_FIELDS && r[3] === "update",
    ),
  );
  assert.ok(worst < -109 && flat.includes("every accepted configuration has ε < 2^−109"));
  assert.ok(Math.abs(LOG2_CHALLENGE_FIELD - 123.95) < 0.01 && flat.includes("|K| = p^4 ≈ 2^123.95"));
});

test("docs/security.md states the limits the code enforces; README links to it with a soundness paragraph", () => {
  assert.match(
    doc,
    new RegExp(`\\| leaf bound B \\(\`leaf_max_fields\`\\) \\| 10\\.\\.${MAX_CONFIG_LEAF_MAX_FIELDS} \\|`),
  );
  assert.match(doc, new RegExp(`\\| tree depth \\| 1\\.\\.${MAX_CONFIG_DEPTH} \\|`));
  assert.ok(
    flat.includes(
      `e.g. ${maxProofBytes(OpKind.Membership, { depth: 24, leafMaxFields: 31 }).toLocaleString("en-US")} bytes for d24 membership`,
    ),
  );
  for (const needed of [
    "no zero knowledge",
    "Key aliasing at depth ≥ 31",
    "Reporting a vulnerability",
    "absorbed before the first challenge",
    "--expect-old-root",
  ]) {
    assert.ok(flat.toLowerCase().includes(needed.toLowerCase()), needed);
  }
  const para = readme.split(/\n\n/).find((p) => /soundness/i.test(p) && p.includes("docs/security.md"));
  assert.ok(para, "README has a paragraph on soundness linking docs/security.md");
  assert.match(para, /F_p\^4/);
  assert.match(para, /2\^124/);
  assert.match(para, /2\^−109/);
});
