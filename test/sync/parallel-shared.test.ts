import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { prepare } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { DerivedRegularWiring } from "../../src/gkr/wiring/derived.js";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { OpKind } from "../../src/statement/types.js";
import { attachPrepared, sharePrepared, type SharedPrepared } from "../../src/sync/parallel/shared-prepared.js";
import { decodeJob, encodeJob, JobDecodeError } from "../../src/sync/parallel/job-codec.js";
import { ParallelError } from "../../src/sync/parallel/errors.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { SsgkrError } from "../../src/errors.js";
import { withoutEntryOptions } from "../../src/sync/parallel/worker-start.js";

const DEPTH = 2;
const prepared = prepare(OpKind.Update, { depth: DEPTH });

test("an attached prepared circuit has the fields, arrays, commitment and identity of the original", () => {
  const shared = sharePrepared(prepared);
  assert.equal(sharePrepared(prepared), shared, "sharing is cached");
  const a = attachPrepared(shared);
  assert.deepEqual(Object.keys(a).sort(), Object.keys(prepared).sort());
  assert.deepEqual(Object.keys(a.compiled).sort(), Object.keys(prepared.compiled).sort());
  assert.equal(sharePrepared(a), shared, "an attached circuit shares its descriptor");
  assert.equal(a.kind, prepared.kind);
  assert.deepEqual(a.config, prepared.config);
  assert.deepEqual(a.commitment, prepared.commitment);
  assert.deepEqual(a.identity, prepared.identity);
  assert.deepEqual(a.shape, prepared.shape);
  assert.deepEqual(a.compiled.layout, prepared.compiled.layout);
  assert.equal(a.compiled.outputCount, prepared.compiled.outputCount);
  assert.equal(a.circuit.inputWidthBits, prepared.circuit.inputWidthBits);
  assert.equal(a.circuit.layers.length, prepared.circuit.layers.length);
  for (let i = 0; i < a.circuit.layers.length; i++) {
    const x = a.circuit.layers[i]!,
      y = prepared.circuit.layers[i]!;
    assert.ok(x.gateOut.buffer instanceof SharedArrayBuffer);
    for (const k of ["gateKind", "gateOut", "gateIn1", "gateIn2", "gateCoeff", "constWire", "constValue"] as const) {
      assert.deepEqual(Array.from(x[k]), Array.from(y[k]), `layer ${i} ${k}`);
    }
    const tx = a.compiled.tags.layers[i]!,
      ty = prepared.compiled.tags.layers[i]!;
    for (const k of ["gateFamily", "gateBlock", "constFamily", "constBlock"] as const)
      assert.deepEqual(Array.from(tx[k]), Array.from(ty[k]));
    assert.deepEqual(tx.families, ty.families);
    assert.equal(tx.untaggedBase, ty.untaggedBase);
  }
  assert.equal(a.timings.compileMs, 0);
  assert.equal(a.timings.commitmentMs, 0);
});

test("a proof made with an attached circuit is byte-identical, and verifies with a lazily built wiring of the original's kind", () => {
  const job = corpusRequest(OpKind.Update, 1, { depth: DEPTH });
  const a = attachPrepared(sharePrepared(prepared));
  const bytes = encodeSyncResult(a, provePrepared(a, job));
  assert.deepEqual(bytes, encodeSyncResult(prepared, provePrepared(prepared, job)));
  assert.equal(a.timings.wiringMs, 0, "proving does not build the wiring");
  assert.deepEqual(verifyEncoded(a, job, bytes), { ok: true });
  assert.ok(a.timings.wiringMs > 0);
  assert.equal(a.wiring, a.wiring, "built once");
  assert.equal(a.wiring.constructor, prepared.wiring.constructor);
  const tampered = bytes.slice();
  tampered[300]! ^= 1;
  assert.deepEqual(verifyEncoded(a, job, tampered), verifyEncoded(prepared, job, tampered));

  const withTable = prepare(OpKind.Membership, { depth: 1 }, { wiring: (c) => new TableWiring(c.circuit) });
  const t = attachPrepared(sharePrepared(withTable));
  assert.equal(sharePrepared(withTable).wiring, "table");
  assert.ok(t.wiring instanceof TableWiring);
  assert.ok(a.wiring instanceof DerivedRegularWiring);
  assert.ok(
    attachPrepared(sharePrepared(withTable), { wiring: (c) => new DerivedRegularWiring(c.circuit, c.tags) })
      .wiring instanceof DerivedRegularWiring,
  );
});

test("a descriptor that does not fit its buffer is rejected with BAD_SHARED", () => {
  const shared = sharePrepared(prepared);
  const bad = (d: unknown) =>
    assert.throws(
      () => attachPrepared(d as SharedPrepared),
      (e: unknown) => e instanceof ParallelError && e.code === "BAD_SHARED",
    );
  bad(null);
  bad({ ...shared, format: 2 });
  bad({ ...shared, buffer: new ArrayBuffer(8) });
  bad({ ...shared, layers: [] });
  bad({ ...shared, commitment: [1, 2] });
  bad({ ...shared, wiring: "dense" });
  const l0 = shared.layers[0]!;
  bad({
    ...shared,
    layers: [{ ...l0, offsets: l0.offsets.map(() => shared.buffer.byteLength) }, ...shared.layers.slice(1)],
  });
  bad({ ...shared, layers: [{ ...l0, offsets: [3, ...l0.offsets.slice(1)] }, ...shared.layers.slice(1)] });
  bad({ ...shared, layers: [{ ...l0, gates: -1 }, ...shared.layers.slice(1)] });
  assert.throws(
    () => attachPrepared({ ...shared, kind: 7 as unknown as OpKind }),
    (e: unknown) => e instanceof SsgkrError && e.code === "BAD_KIND",
  );
});

function roundTrip(r: OpRequest): OpRequest {
  const words = encodeJob(r);
  assert.ok(words, "representable");
  return decodeJob(words);
}

test("the binary job form round-trips corpus requests of every kind exactly", () => {
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    for (const depth of [1, 24]) {
      const r = corpusRequest(kind, 0, { depth });
      const { config: _c, fixtureId: _f, ...request } = r;
      assert.deepEqual(roundTrip(request), request);
    }
  }
});

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const words = (n: fc.Arbitrary<number>) =>
  n.chain((len) => fc.array(u32, { minLength: len, maxLength: len })).map((a) => Uint32Array.from(a));
const leaf = fc.oneof(
  fc.constantFrom({ tag: 0 as const }, { tag: 2 as const }),
  fc.record(
    {
      tag: fc.constant(1 as const),
      payload: fc.array(u32, { maxLength: 25 }),
      identity: fc.uint8Array({ minLength: 0, maxLength: 40 }),
    },
    { noNullPrototype: true },
  ),
);
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const request: fc.Arbitrary<OpRequest> = fc
  .record({
    kind: fc.constantFrom(0, 1, 2),
    key: u64,
    a: leaf,
    b: leaf,
    w: leaf,
    siblings: fc.array(words(fc.integer({ min: 0, max: 10 })), { maxLength: 6 }),
    oldRoot: words(fc.integer({ min: 0, max: 9 })),
    newRoot: words(fc.constant(8)),
    tag: u32,
    assetId: u64,
    valueDigest: words(fc.constant(8)),
  })
  .map(
    (x) =>
      ({
        operation:
          x.kind === 0
            ? { kind: OpKind.Membership, key: x.key, leaf: x.a }
            : x.kind === 1
              ? { kind: OpKind.NonMembership, key: x.key }
              : { kind: OpKind.Update, key: x.key, oldLeaf: x.a, newLeaf: x.b },
        witness: { leaf: x.w, siblings: x.siblings },
        publicInputs: {
          oldRoot: x.oldRoot,
          newRoot: x.newRoot,
          opKindTag: x.tag,
          assetId: x.assetId,
          valueDigest: x.valueDigest,
        },
      }) as unknown as OpRequest,
  );

test("the binary job form round-trips any request of u32 values exactly, inconsistent ones included", () => {
  fc.assert(
    fc.property(request, (r) => assert.deepEqual(roundTrip(r), r)),
    { numRuns: 300 },
  );
});

test("requests the binary form cannot carry exactly are left to structured clone", () => {
  const base = corpusRequest(OpKind.Membership, 0, { depth: 2 });
  const op = base.operation as {
    kind: OpKind.Membership;
    key: bigint;
    leaf: { tag: 1; payload: number[]; identity: Uint8Array };
  };
  const variants: unknown[] = [
    { ...base, operation: { ...op, key: -1n } },
    { ...base, operation: { ...op, key: 1n << 64n } },
    { ...base, operation: { ...op, key: 5 } },
    { ...base, operation: { ...op, kind: 5 } },
    { ...base, operation: { ...op, leaf: { ...op.leaf, payload: [1.5] } } },
    { ...base, operation: { ...op, leaf: { ...op.leaf, payload: [-1] } } },
    { ...base, operation: { ...op, leaf: { ...op.leaf, identity: [1, 2] } } },
    { ...base, operation: { ...op, leaf: { tag: 9 } } },
    { ...base, witness: { ...base.witness, siblings: "no" } },
    { ...base, witness: { ...base.witness, siblings: [[2 ** 32]] } },
    { ...base, publicInputs: { ...base.publicInputs, opKindTag: "0" } },
    { ...base, publicInputs: { ...base.publicInputs, assetId: 1 } },
    { ...base, publicInputs: null },
    { ...base, witness: null },
    { ...base, operation: null },
  ];
  for (const v of variants)
    assert.equal(
      encodeJob(v as OpRequest),
      null,
      JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x)),
    );
});

test("decodeJob rejects words encodeJob cannot have produced", () => {
  const words = encodeJob(corpusRequest(OpKind.Update, 0, { depth: 2 }))!;
  const rejects = (w: Uint32Array) => assert.throws(() => decodeJob(w), JobDecodeError);
  rejects(words.subarray(0, words.length - 1));
  rejects(Uint32Array.from([...words, 0]));
  rejects(Uint32Array.from([2, ...words.subarray(1)]));
  rejects(Uint32Array.from([1, 3, ...words.subarray(2)]));
  rejects(new Uint32Array(0));
});

test("workers keep the parent's Node options except the entry-point ones", () => {
  assert.deepEqual(
    withoutEntryOptions([
      "--input-type",
      "module",
      "--conditions=dev",
      "-e",
      "code",
      "--input-type=commonjs",
      "--stack-size=900",
      "-p",
      "1",
      "--eval",
      "x",
      "--print",
      "y",
    ]),
    ["--conditions=dev", "--stack-size=900"],
  );
  assert.deepEqual(withoutEntryOptions([]), []);
});
