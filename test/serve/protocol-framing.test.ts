import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  encodeFrame,
  FrameReader,
  JobStreamReader,
  MAX_JOB_BYTES,
  parseJson,
  parseJsonExact,
  ProtocolError,
  stringifyJson,
} from "../../src/serve/protocol/index.js";

function toPlain(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

function splitAt(buf: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(buf.subarray(prev, p));
    prev = p;
  }
  out.push(buf.subarray(prev));
  return out;
}

test("parseJsonExact agrees with JSON.parse on any JSON text (big integers as the nearest double)", () => {
  fc.assert(
    fc.property(fc.json(), (text) => {
      assert.deepEqual(toPlain(parseJsonExact(text)), JSON.parse(text));
      assert.deepEqual(toPlain(parseJson(text)), JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

test("parseJsonExact rejects exactly what JSON.parse rejects", () => {
  const samples = [
    "",
    "{",
    "[1,]",
    '{"a":1,}',
    "01",
    "1.",
    "-",
    "+1",
    "1e",
    '"\\x"',
    '"a\nb"',
    "nul",
    "[1 2]",
    '{"a" 1}',
    "1 2",
    '"\\u12G4"',
    "{}x",
  ];
  for (const s of samples) {
    assert.throws(() => JSON.parse(s));
    assert.throws(
      () => parseJsonExact(s),
      (e: unknown) => e instanceof ProtocolError && e.code === "BAD_JSON",
      s,
    );
    assert.throws(
      () => parseJson(s),
      (e: unknown) => e instanceof ProtocolError && e.code === "BAD_JSON",
      s,
    );
  }
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), (s) => {
      let native = true;
      try {
        JSON.parse(s);
      } catch {
        native = false;
      }
      let ours = true;
      try {
        parseJsonExact(s);
      } catch {
        ours = false;
      }
      assert.equal(ours, native, s);
    }),
    { numRuns: 500 },
  );
});

test("u64 integers above 2^53 survive parse and stringify exactly", () => {
  const values = [
    0n,
    1n,
    9007199254740991n,
    9007199254740992n,
    9007199254740993n,
    18446744073709551615n,
    123456789012345678n,
  ];
  for (const v of values) {
    const text = stringifyJson({ job_id: v, list: [v, 1] });
    const parsed = parseJson(text) as { job_id: number | bigint; list: (number | bigint)[] };
    assert.equal(BigInt(parsed.job_id), v);
    assert.equal(BigInt(parsed.list[0]!), v);
    assert.equal(stringifyJson(parsed), text);
  }
  // 16+ digit runs inside strings take the exact parser and stay strings.
  assert.deepEqual(parseJson('{"s":"12345678901234567890","n":12345678901234567890}'), {
    s: "12345678901234567890",
    n: 12345678901234567890n,
  });
  // a safe integer written with many digits is still a number
  assert.equal(parseJson("0000000000000001".replace(/^0+/, "") + ""), 1);
  assert.equal(parseJson("1000000000000000"), 1000000000000000);
  assert.equal(parseJson("-9007199254740993"), -9007199254740993n);
});

test("frames split at arbitrary points are reassembled in order", () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(2000), { maxLength: 10 }),
      (bodies, cuts) => {
        const stream = Buffer.concat(bodies.map((b) => encodeFrame(b, 1000)));
        const r = new FrameReader();
        const got: Buffer[] = [];
        for (const piece of splitAt(stream, cuts)) {
          r.push(Buffer.from(piece));
          for (let f = r.next(1000); f !== null; f = r.next(1000)) got.push(Buffer.from(f));
        }
        assert.equal(got.length, bodies.length);
        got.forEach((g, i) => assert.deepEqual(new Uint8Array(g), bodies[i]));
        assert.ok(r.idle);
        r.end();
      },
    ),
    { numRuns: 200 },
  );
});

test("a frame above its bound is refused as soon as its length is read", () => {
  const r = new JobStreamReader();
  const header = Buffer.alloc(4);
  header.writeUInt32BE(MAX_JOB_BYTES + 1, 0);
  r.push(header.subarray(0, 3));
  assert.equal(r.next(), null);
  r.push(header.subarray(3));
  assert.throws(
    () => r.next(),
    (e: unknown) =>
      e instanceof ProtocolError && e.code === "FRAME_TOO_LARGE" && e.details.declared === MAX_JOB_BYTES + 1,
  );
  // exactly at the bound is fine (header only: body not yet here)
  const ok = new FrameReader();
  header.writeUInt32BE(10, 0);
  ok.push(header);
  assert.equal(ok.next(10), null);
  assert.throws(
    () => encodeFrame(new Uint8Array(11), 10),
    (e: unknown) => e instanceof ProtocolError && e.code === "MESSAGE_TOO_LONG",
  );
});

test("a stream that ends inside a frame is truncated; zero-length frames are frames", () => {
  const r = new FrameReader();
  r.push(encodeFrame(new Uint8Array(0), 10));
  assert.deepEqual(r.next(10), Buffer.alloc(0));
  r.end();
  r.push(encodeFrame(Uint8Array.of(1, 2, 3), 10).subarray(0, 5));
  assert.equal(r.next(10), null);
  assert.equal(r.idle, false);
  assert.throws(
    () => r.end(),
    (e: unknown) => e instanceof ProtocolError && e.code === "FRAME_TRUNCATED",
  );
  const h = new FrameReader();
  h.push(Uint8Array.of(0, 0));
  assert.throws(
    () => h.end(),
    (e: unknown) => e instanceof ProtocolError && e.code === "FRAME_TRUNCATED",
  );
});
