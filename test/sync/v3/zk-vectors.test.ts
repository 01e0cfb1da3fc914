/**
 * Known answers of inner-proof-v3zk (docs/profile-v3.md §11): v3-zk proofs of fixed statements
 * with a fixed seed of the prover's randomness (`whirSeededRandomSource`), pinned by length and
 * SHA-256 in test/vectors/v3zk.json, so the bytes (masks, layout, transcript, encoding) cannot
 * drift unnoticed: one aggregate of each kind and the block with the set cb100-r4 and the hiding
 * layout extra-variable, one aggregate with the default set in that layout, and one aggregate of
 * each kind and the block with the default set and the default layout (top-block where it fits).
 * `UPDATE_V3ZK_VECTORS=1` rewrites the file after an intended change of §11.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WhirSetId } from "../../../src/pcs/params.js";
import type { WhirHidingLayout } from "../../../src/pcs/types.js";
import type { OpKind } from "../../../src/statement/types.js";
import { whirSeededRandomSource } from "../../../src/pcs/random.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import { prepareV3, proveAggregateV3, proveBlockV3, verifyAggregateV3 } from "../../../src/sync/v3/index.js";
import { blockFixture, verdictCode } from "./support.js";

interface Vector {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
}

const FILE = join(process.cwd(), "test", "vectors", "v3zk.json");
/** The default set when these vectors were made: they stay pinned to it whatever the default is now. */
const VECTOR_SET: WhirSetId = "cb100-r4-s3";

function proofs(): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = [];
  const extra = "extra-variable" as const;
  const aggregates: [OpKind, WhirSetId, WhirHidingLayout | undefined, string][] = [
    ["membership", "cb100-r4", extra, ""],
    ["nonmembership", "cb100-r4", extra, ""],
    ["update", "cb100-r4", extra, ""],
    ["membership", VECTOR_SET, extra, `, ${VECTOR_SET}`],
    ["membership", VECTOR_SET, undefined, `, ${VECTOR_SET}, default layout`],
    ["nonmembership", VECTOR_SET, undefined, `, ${VECTOR_SET}, default layout`],
    ["update", VECTOR_SET, undefined, `, ${VECTOR_SET}, default layout`],
  ];
  for (const [kind, pcsSet, hidingLayout, suffix] of aggregates) {
    const p = prepareV3(kind, { depth: 8 });
    const requests = [3n, 9n].map((key) => goldenFixture(kind, 8, key));
    const bytes = proveAggregateV3(p, requests, {
      zk: true,
      pcsSet,
      ...(hidingLayout ? { hidingLayout } : {}),
      random: whirSeededRandomSource(`v3zk vector ${kind}`),
    });
    assert.equal(
      verdictCode(
        verifyAggregateV3(
          p,
          requests.map((r) => v3StatementOf(r)),
          bytes,
        ),
      ),
      "ok",
      `${kind}${suffix}`,
    );
    out.push([`aggregate of 2 ${kind} d8${suffix}`, bytes]);
  }
  const u = prepareV3("update", { depth: 5 });
  const { updates, rules } = blockFixture(5, 3);
  out.push([
    "block of 3 updates d5",
    proveBlockV3(u, updates, {
      rules,
      zk: true,
      pcsSet: "cb100-r4",
      hidingLayout: extra,
      random: whirSeededRandomSource("v3zk vector block"),
    }),
  ]);
  out.push([
    `block of 3 updates d5, ${VECTOR_SET}, default layout`,
    proveBlockV3(u, updates, {
      rules,
      zk: true,
      pcsSet: VECTOR_SET,
      random: whirSeededRandomSource("v3zk vector block"),
    }),
  ]);
  // The default set since the width-24 leaves (added after the entries above, which never change).
  for (const kind of ["membership", "update"] as const) {
    const p = prepareV3(kind, { depth: 8 });
    const requests = [3n, 9n].map((key) => goldenFixture(kind, 8, key));
    const bytes = proveAggregateV3(p, requests, {
      zk: true,
      pcsSet: "cb100-r4-s3-l24",
      random: whirSeededRandomSource(`v3zk vector ${kind}`),
    });
    const statements = requests.map((r) => v3StatementOf(r));
    assert.equal(verdictCode(verifyAggregateV3(p, statements, bytes)), "ok", `${kind}, cb100-r4-s3-l24`);
    out.push([`aggregate of 2 ${kind} d8, cb100-r4-s3-l24, default layout`, bytes]);
  }
  out.push([
    "block of 3 updates d5, cb100-r4-s3-l24, default layout",
    proveBlockV3(u, updates, {
      rules,
      zk: true,
      pcsSet: "cb100-r4-s3-l24",
      random: whirSeededRandomSource("v3zk vector block"),
    }),
  ]);
  return out;
}

test("v3-zk proofs of fixed statements and seeds have the checked-in lengths and SHA-256 digests", () => {
  const got: Vector[] = proofs().map(([name, b]) => ({
    name,
    bytes: b.length,
    sha256: createHash("sha256").update(b).digest("hex"),
  }));
  if (process.env.UPDATE_V3ZK_VECTORS === "1") writeFileSync(FILE, `${JSON.stringify(got, null, 2)}\n`);
  const want = JSON.parse(readFileSync(FILE, "utf8")) as Vector[];
  assert.deepEqual(got, want);
});
