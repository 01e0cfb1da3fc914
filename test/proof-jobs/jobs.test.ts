/**
 * The registry proof jobs' messages (src/proof-jobs/jobs.ts): jobs round-trip; every malformed
 * job and every job over a bound is refused before any work, with the refusal's kind and, when
 * they are well-formed, the id and reply token its one error result goes to; results round-trip
 * through their chunks, and a malformed result or chunk header is refused.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_JOB_ID_CHARS,
  MAX_JOB_NAME_BYTES,
  MAX_REGISTRY_JOB_BYTES,
  MAX_RESULT_BYTES,
  decodeJob,
  decodeResult,
  encodeJob,
  encodeResult,
  parseChunkHeader,
  primaryToken,
  registryJobConsumer,
  registryJobSubject,
  registryResultSubject,
  type RegistryJob,
} from "../../src/proof-jobs/jobs.js";

const ROOT = "ab".repeat(32);
const read: RegistryJob = {
  v: 1,
  id: "p1-7.1",
  kind: "read",
  reply: "p1",
  name: "left-pad",
  root: ROOT,
  profile: "v3-zk",
};
const block: RegistryJob = { v: 1, id: "p1-8", kind: "block", reply: "p1", batch: 12, part: 3 };
const raw = (o: unknown) => Buffer.from(typeof o === "string" ? o : JSON.stringify(o), "utf8");

test("read and block jobs round-trip, in every profile", () => {
  for (const profile of ["v1", "v3", "v3-zk"] as const) {
    const j = { ...read, profile } as RegistryJob;
    assert.deepEqual(decodeJob(encodeJob(j)), { ok: true, job: j });
  }
  assert.deepEqual(decodeJob(encodeJob(block)), { ok: true, job: block });
  const expiring = { ...block, expires: 1_800_000_000_000 } as RegistryJob;
  assert.deepEqual(decodeJob(encodeJob(expiring)), { ok: true, job: expiring });
  const unicode = { ...read, name: "名前/é" } as RegistryJob;
  assert.deepEqual(decodeJob(encodeJob(unicode)), { ok: true, job: unicode });
});

test("malformed jobs are refused as malformed, with their id and reply when those are well-formed", () => {
  const cases: [unknown, string][] = [
    ["not json", "not JSON"],
    [[1, 2], "not an object"],
    [null, "not an object"],
    [{ ...read, v: 2 }, "version"],
    [{ ...read, kind: "update" }, "kind"],
    [{ ...read, root: ROOT.toUpperCase() }, "root"],
    [{ ...read, root: "ab" }, "root"],
    [{ ...read, profile: "v2" }, "profile"],
    [{ ...read, name: "" }, "name"],
    [{ ...read, name: 7 }, "name"],
    [{ ...read, witness: "x" }, "unknown field"],
    [{ ...block, batch: 1.5 }, "integers"],
    [{ ...block, part: "0" }, "integers"],
    [{ ...block, extra: 1 }, "unknown field"],
    [{ ...read, id: 5 }, "strings"],
    [{ ...read, expires: "soon" }, "expires"],
    [{ ...block, expires: -1 }, "expires"],
    [{ ...block, expires: 1.5 }, "expires"],
  ];
  for (const [o, why] of cases) {
    const d = decodeJob(raw(o));
    assert.equal(d.ok, false, JSON.stringify(o));
    if (d.ok) continue;
    assert.equal(d.refusal, "malformed", JSON.stringify(o));
    assert.match(d.reason, new RegExp(why), JSON.stringify(o));
  }
  const d = decodeJob(raw({ ...read, profile: "v9" }));
  assert.ok(!d.ok && d.id === read.id && d.reply === "p1");
  const n = decodeJob(raw("[]"));
  assert.ok(!n.ok && n.id === undefined && n.reply === undefined);
});

test("jobs over a bound are refused as over_bound before anything else is read; the refusal never echoes an unbounded field", () => {
  const huge = Buffer.alloc(MAX_REGISTRY_JOB_BYTES + 1, 0x20);
  const h = decodeJob(huge);
  assert.ok(!h.ok && h.refusal === "over_bound" && /exceeds/.test(h.reason));
  const cases: [unknown, RegExp][] = [
    [{ ...read, name: "n".repeat(MAX_JOB_NAME_BYTES + 1) }, /name of 1025 bytes/],
    [{ ...read, name: "é".repeat(MAX_JOB_NAME_BYTES / 2 + 1) }, /name of 1026 bytes/],
    [{ ...read, id: "i".repeat(MAX_JOB_ID_CHARS + 1) }, /^id must/],
    [{ ...read, id: "a b" }, /^id must/],
    [{ ...read, reply: "r.".repeat(60) }, /^reply must/],
    [{ ...block, batch: 0 }, /batch 0/],
    [{ ...block, batch: 2 ** 40 }, /batch/],
    [{ ...block, part: -1 }, /part -1/],
    [{ ...block, part: 2 ** 21 }, /part/],
  ];
  for (const [o, re] of cases) {
    const d = decodeJob(raw(o));
    assert.ok(!d.ok, JSON.stringify(o).slice(0, 80));
    if (d.ok) continue;
    assert.equal(d.refusal, "over_bound", JSON.stringify(o).slice(0, 80));
    assert.match(d.reason, re);
    assert.ok(d.reason.length < 200, d.reason);
  }
  const longKind = decodeJob(raw({ ...read, kind: "k".repeat(5000) }));
  assert.ok(!longKind.ok && longKind.reason.length < 120);
});

test("a result round-trips through its chunks (a proof over several chunks, an error result of one), and a malformed one is refused", () => {
  const proof = Uint8Array.from({ length: 3000 }, (_, i) => i & 255);
  const ok = {
    id: "p1-7.1",
    ok: true as const,
    worker: "w1/12",
    value: { statement: { name: "x" }, proveMs: 3 },
    proof,
  };
  const chunks = encodeResult(ok, 1000);
  assert.equal(
    chunks.length,
    Math.ceil((4 + JSON.stringify({ id: ok.id, ok: true, worker: ok.worker, value: ok.value }).length + 3000) / 1000),
  );
  chunks.forEach((c, i) => {
    assert.equal(c.index, i);
    assert.equal(c.count, chunks.length);
    assert.equal(c.job, ok.id);
    assert.ok(c.data.length <= 1000);
  });
  const back = decodeResult(Buffer.concat(chunks.map((c) => c.data)));
  assert.deepEqual(back, ok);
  const err = { id: "p1-8", ok: false as const, worker: "w2", code: "ROOT_UNKNOWN", message: "no", details: { a: 1 } };
  const one = encodeResult(err);
  assert.equal(one.length, 1);
  assert.deepEqual(decodeResult(one[0]!.data), err);
  // malformed results
  assert.equal(decodeResult(new Uint8Array(2)), undefined);
  const bad = Buffer.alloc(8);
  bad.writeUInt32BE(100, 0);
  assert.equal(decodeResult(bad), undefined, "a length past the end");
  const notJson = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from("abc")]);
  assert.equal(decodeResult(notJson), undefined);
  const frame = (o: unknown) => {
    const j = Buffer.from(JSON.stringify(o));
    const b = Buffer.alloc(4);
    b.writeUInt32BE(j.length, 0);
    return Buffer.concat([b, j]);
  };
  assert.equal(
    decodeResult(frame({ id: "a b", ok: true, worker: "w", value: {} })),
    undefined,
    "an id that is no token",
  );
  assert.equal(
    decodeResult(frame({ id: "a", ok: true, worker: "w", value: [] })),
    undefined,
    "a value that is no object",
  );
  assert.equal(decodeResult(frame({ id: "a", ok: false, worker: "w", code: 1, message: "m" })), undefined);
  assert.throws(() => encodeResult({ ...ok, proof: new Uint8Array(MAX_RESULT_BYTES) }), RangeError);
});

test("chunk headers are parsed within their bounds; names on the broker", () => {
  assert.deepEqual(parseChunkHeader("0/1"), { index: 0, count: 1 });
  assert.deepEqual(parseChunkHeader("4/5"), { index: 4, count: 5 });
  for (const h of [undefined, "", "1/1", "0/0", "a/b", "-1/2", "0/9999999", "0/70000"])
    assert.equal(parseChunkHeader(h), undefined, h);
  assert.equal(registryJobSubject("read"), "ssgkr.registry.jobs.read");
  assert.equal(registryJobConsumer("block"), "ssgkr-registry-block");
  assert.equal(registryResultSubject("p1"), "ssgkr.registry.results.p1");
  assert.equal(primaryToken("host-1_a"), "host-1_a");
  const t = primaryToken("a.b c*>");
  assert.match(t, /^h[0-9a-f]{24}$/);
  assert.equal(primaryToken("x".repeat(33)).length, 25);
});
