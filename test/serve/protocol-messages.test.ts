import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { OP_KIND_NAMES, type OpKindTag } from "../../src/statement/types.js";
import { P } from "../../src/field/koalabear.js";
import {
  baseReply,
  decodeJob,
  encodeJobFrame,
  encodeReplyFrames,
  errorReply,
  inputFromRequest,
  INPUT_REASONS,
  jobToJson,
  JobStreamReader,
  parseJson,
  stringifyJson,
  ProtocolError,
  REPLY_FIELDS,
  ReplyStreamReader,
  requestFromInput,
  sha256Hex,
  type Job,
  type JobInput,
  type Reply,
} from "../../src/serve/protocol/index.js";

const DEPTH = 4;

function job(input: JobInput, over: Partial<Job> = {}): Job {
  return {
    protocol: 1,
    run_id: "pilot",
    job_id: 7n,
    fixture_id: 3,
    repeat: 1,
    warmup: false,
    scheduled_unix_ns: 1_700_000_000_000_000_000n,
    deadline_unix_ns: 1_700_000_001_000_000_000n,
    input,
    ...over,
  };
}

function corpusInput(kind: number, i: number, depth = DEPTH): JobInput {
  return inputFromRequest(corpusRequest(kind as OpKindTag, i, { depth }));
}

function jobValue(j: Job): Record<string, unknown> {
  return parseJson(jobToJson(j)) as Record<string, unknown>;
}

const isProto = (code: string) => (e: unknown) => e instanceof ProtocolError && e.code === code;

test("a Job round-trips through its frame, u64 fields exactly", () => {
  for (const kind of [0, 1, 2]) {
    const j = job(corpusInput(kind, 2), { job_id: 18446744073709551615n, scheduled_unix_ns: 9007199254740993n });
    const frame = encodeJobFrame(j);
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const r = new JobStreamReader();
    r.push(frame);
    const back = r.nextJob();
    assert.deepEqual(back, j);
    assert.equal(r.nextJob(), null);
  }
});

test("Job JSON carries exactly the §16.2 field names", () => {
  const v = jobValue(job(corpusInput(2, 1)));
  assert.deepEqual(Object.keys(v), [
    "protocol",
    "run_id",
    "job_id",
    "fixture_id",
    "repeat",
    "warmup",
    "scheduled_unix_ns",
    "deadline_unix_ns",
    "input",
  ]);
  assert.deepEqual(Object.keys(v.input as object), [
    "kind",
    "key",
    "old_leaf",
    "new_leaf",
    "siblings",
    "old_root",
    "new_root",
    "value_digest",
  ]);
  assert.deepEqual(Object.keys((v.input as { old_leaf: object }).old_leaf), ["tag", "payload", "identity"]);
});

test("a Job with a missing or mistyped field is refused with its JSON path; unknown fields are ignored", () => {
  const base = jobValue(job(corpusInput(0, 1)));
  const text = (v: unknown) => Buffer.from(stringifyJson(v));
  for (const field of [
    "protocol",
    "run_id",
    "job_id",
    "fixture_id",
    "repeat",
    "warmup",
    "scheduled_unix_ns",
    "deadline_unix_ns",
    "input",
  ]) {
    const v = { ...base };
    delete v[field];
    assert.throws(
      () => decodeJob(text(v)),
      (e: unknown) => isProto("BAD_JOB")(e) && (e as ProtocolError).details.path === `$.${field}`,
      field,
    );
  }
  const input = base.input as Record<string, unknown>;
  for (const field of Object.keys(input)) {
    const inp = { ...input };
    delete inp[field];
    assert.throws(
      () => decodeJob(text({ ...base, input: inp })),
      (e: unknown) => isProto("BAD_JOB")(e) && (e as ProtocolError).details.path === `$.input.${field}`,
      field,
    );
  }
  const mut = (f: (v: any) => void) => {
    const v = parseJson(stringifyJson(base)) as any;
    f(v);
    return text(v);
  };
  assert.throws(
    () =>
      decodeJob(
        mut((v) => {
          v.job_id = -1;
        }),
      ),
    isProto("BAD_JOB"),
  );
  assert.throws(
    () =>
      decodeJob(
        mut((v) => {
          v.job_id = "5";
        }),
      ),
    isProto("BAD_JOB"),
  );
  assert.throws(
    () =>
      decodeJob(Buffer.from(jobToJson(job(corpusInput(0, 1))).replace('"job_id":7', '"job_id":18446744073709551616'))),
    isProto("BAD_JOB"),
  );
  assert.throws(
    () =>
      decodeJob(
        mut((v) => {
          v.input.siblings[0][0] = 2 ** 32;
        }),
      ),
    (e: unknown) => isProto("BAD_JOB")(e) && (e as ProtocolError).details.path === "$.input.siblings[0][0]",
  );
  assert.throws(
    () =>
      decodeJob(
        mut((v) => {
          v.input.siblings[1] = [1, 2, 3];
        }),
      ),
    isProto("BAD_JOB"),
  );
  assert.throws(
    () =>
      decodeJob(
        mut((v) => {
          v.input.old_leaf.identity.pop();
        }),
      ),
    isProto("BAD_JOB"),
  );
  assert.throws(
    () =>
      decodeJob(
        mut((v) => {
          v.input.old_leaf.tag = 256;
        }),
      ),
    isProto("BAD_JOB"),
  );
  assert.throws(
    () =>
      decodeJob(
        mut((v) => {
          v.warmup = 0;
        }),
      ),
    isProto("BAD_JOB"),
  );
  assert.throws(() => decodeJob(Buffer.from("{not json")), isProto("BAD_JSON"));
  assert.throws(() => decodeJob(Uint8Array.of(0xff, 0xfe)), isProto("BAD_JSON"));
  const extra = decodeJob(
    mut((v) => {
      v.extra = [1, 2];
      v.input.more = true;
    }),
  );
  assert.equal(extra.job_id, 7n);
});

test("corpus requests survive the wire form: inputFromRequest → requestFromInput gives the same request", () => {
  for (const kind of [0, 1, 2] as const) {
    for (const i of [0, 5, 14]) {
      const req = corpusRequest(kind, i, { depth: DEPTH });
      const input = decodeJob(Buffer.from(jobToJson(job(inputFromRequest(req))))).input;
      assert.equal(input.kind, OP_KIND_NAMES[kind]);
      const out = requestFromInput(input, DEPTH);
      assert.ok(out.ok);
      assert.equal(out.kind, OP_KIND_NAMES[kind]);
      assert.deepEqual(out.request.operation, req.operation);
      assert.deepEqual(out.request.witness.leaf, req.witness.leaf);
      assert.deepEqual(
        out.request.witness.siblings.map((s) => Array.from(s)),
        req.witness.siblings.map((s) => Array.from(s)),
      );
      assert.deepEqual(out.request.publicInputs, {
        ...req.publicInputs,
        oldRoot: Uint32Array.from(req.publicInputs.oldRoot),
        newRoot: Uint32Array.from(req.publicInputs.newRoot),
        valueDigest: Uint32Array.from(req.publicInputs.valueDigest),
      });
    }
  }
});

function reason(input: JobInput, depth = DEPTH): string | null {
  const o = requestFromInput(input, depth);
  return o.ok ? null : o.reason;
}

function edit(input: JobInput, f: (v: any) => void): JobInput {
  const v = structuredClone(input) as any;
  f(v);
  return v as JobInput;
}

test("input rule 1: sibling count, depth 1..32 and key < 2^min(depth, 24)", () => {
  const m = corpusInput(0, 1);
  assert.equal(reason(m), null);
  assert.equal(reason(edit(m, (v) => v.siblings.pop())), INPUT_REASONS.outsideProfile);
  assert.equal(reason(edit(m, (v) => v.siblings.push([0, 0, 0, 0, 0, 0, 0, 0]))), INPUT_REASONS.outsideProfile);
  assert.equal(
    reason(
      edit(m, (v) => {
        v.key = 16n;
      }),
    ),
    INPUT_REASONS.outsideProfile,
  );
  assert.equal(
    reason(
      edit(m, (v) => {
        v.key = 15n;
      }),
    ),
    null,
  );
  assert.equal(reason({ ...m, siblings: [] }, 0), INPUT_REASONS.outsideProfile);
  const deep = { ...m, siblings: Array.from({ length: 33 }, () => [0, 0, 0, 0, 0, 0, 0, 0]) };
  assert.equal(reason(deep, 33), INPUT_REASONS.outsideProfile);
  const d30 = { ...m, siblings: Array.from({ length: 30 }, () => [0, 0, 0, 0, 0, 0, 0, 0]) };
  assert.equal(reason({ ...d30, key: (1n << 24n) - 1n }, 30), null);
  assert.equal(reason({ ...d30, key: 1n << 24n }, 30), INPUT_REASONS.outsideProfile);
  // rule 1 comes before everything else
  assert.equal(
    reason(
      edit(m, (v) => {
        v.key = 99n;
        v.old_leaf.tag = 9;
        v.old_root[0] = P;
      }),
    ),
    INPUT_REASONS.outsideProfile,
  );
});

test("input rule 2: payload length, leaf tags and fields, canonical payload; old_leaf before new_leaf", () => {
  const u = corpusInput(2, 1);
  assert.equal(
    reason(
      edit(u, (v) => {
        v.old_leaf.payload = new Array(22).fill(1);
      }),
    ),
    INPUT_REASONS.payloadTooLong,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.old_leaf.payload = new Array(21).fill(1);
      }),
    ),
    null,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.old_leaf.payload[0] = P;
      }),
    ),
    INPUT_REASONS.noncanonical,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.old_leaf.payload[0] = P - 1;
      }),
    ),
    null,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.old_leaf.tag = 3;
      }),
    ),
    INPUT_REASONS.invalidLeaf,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.new_leaf = { tag: 0, payload: [1], identity: new Array(32).fill(0) };
      }),
    ),
    INPUT_REASONS.invalidLeaf,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.new_leaf = { tag: 2, payload: [], identity: [1, ...new Array(31).fill(0)] };
      }),
    ),
    INPUT_REASONS.invalidLeaf,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.new_leaf = { tag: 2, payload: [], identity: new Array(32).fill(0) };
      }),
    ),
    null,
  );
  // length before tag; old before new
  assert.equal(
    reason(
      edit(u, (v) => {
        v.old_leaf.tag = 7;
        v.old_leaf.payload = new Array(22).fill(0);
      }),
    ),
    INPUT_REASONS.payloadTooLong,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.old_leaf.tag = 7;
        v.new_leaf.payload = new Array(22).fill(0);
      }),
    ),
    INPUT_REASONS.invalidLeaf,
  );
  // rule 2 before rules 3 and 4
  assert.equal(
    reason(
      edit(u, (v) => {
        v.kind = "nope";
        v.new_leaf.payload[0] = P;
        v.old_root[0] = P;
      }),
    ),
    INPUT_REASONS.noncanonical,
  );
  assert.equal(
    reason(
      edit(u, (v) => {
        v.kind = "nope";
        v.new_leaf.tag = 5;
      }),
    ),
    INPUT_REASONS.invalidLeaf,
  );
});

test("input rule 3: membership and absence leaves, unknown kinds", () => {
  const m = corpusInput(0, 2);
  const n = corpusInput(1, 2);
  assert.equal(
    reason(
      edit(m, (v) => {
        v.new_leaf.payload[1] = 5;
      }),
    ),
    INPUT_REASONS.invalidMembership,
  );
  assert.equal(
    reason(
      edit(m, (v) => {
        v.new_leaf.identity[31] ^= 1;
      }),
    ),
    INPUT_REASONS.invalidMembership,
  );
  assert.equal(
    reason(
      edit(n, (v) => {
        v.kind = "membership";
      }),
    ),
    INPUT_REASONS.invalidMembership,
  );
  assert.equal(
    reason(
      edit(n, (v) => {
        v.new_leaf.tag = 2;
      }),
    ),
    INPUT_REASONS.invalidAbsence,
  );
  assert.equal(
    reason(
      edit(m, (v) => {
        v.kind = "nonmembership";
      }),
    ),
    INPUT_REASONS.invalidAbsence,
  );
  assert.equal(
    reason(
      edit(n, (v) => {
        v.old_leaf.tag = 2;
        v.new_leaf.tag = 2;
      }),
    ),
    null,
  );
  assert.equal(
    reason(
      edit(m, (v) => {
        v.kind = "Membership";
      }),
    ),
    INPUT_REASONS.unknownKind,
  );
  assert.equal(
    reason(
      edit(m, (v) => {
        v.kind = "";
      }),
    ),
    INPUT_REASONS.unknownKind,
  );
  // rule 3 before rule 4
  assert.equal(
    reason(
      edit(m, (v) => {
        v.kind = "x";
        v.value_digest[7] = P;
      }),
    ),
    INPUT_REASONS.unknownKind,
  );
});

test("input rule 4: siblings, roots and value_digest must be canonical", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(0, 1, 2),
      fc.constantFrom("siblings", "old_root", "new_root", "value_digest"),
      fc.nat(7),
      fc.nat(DEPTH - 1),
      fc.integer({ min: P, max: 0xffffffff }),
      (kind, field, lane, level, bad) => {
        const inp = edit(corpusInput(kind, 3), (v) => {
          if (field === "siblings") v.siblings[level][lane] = bad;
          else v[field][lane] = bad;
        });
        assert.equal(reason(inp), INPUT_REASONS.noncanonical);
      },
    ),
    { numRuns: 60 },
  );
});

test("replies round-trip through their two frames in arbitrary pieces; error replies have an empty proof", () => {
  const j = job(corpusInput(1, 1), { job_id: 12345678901234567890n });
  const origin = { hostId: "h1", processId: 4242 };
  const proof = Buffer.from(Array.from({ length: 1000 }, (_, i) => i & 0xff));
  const ok: Reply = baseReply(j, origin, {
    batch_id: 3n,
    batch_size: 2,
    encoded_bytes: proof.length,
    canonical_sha256: sha256Hex(proof),
    flush_unix_ns: 18446744073709551615n,
  });
  const err = errorReply(j, origin, "server_total_queue_full", { server_received_unix_ns: 5n });
  assert.deepEqual(
    Object.keys(
      parseJson(
        Buffer.concat(encodeReplyFrames(ok, proof))
          .subarray(4, 4 + Buffer.concat(encodeReplyFrames(ok, proof)).readUInt32BE(0))
          .toString(),
      ) as object,
    ),
    [...REPLY_FIELDS],
  );
  const stream = Buffer.concat([...encodeReplyFrames(ok, proof), ...encodeReplyFrames(err, new Uint8Array(0))]);
  fc.assert(
    fc.property(fc.array(fc.nat(stream.length), { maxLength: 8 }), (cuts) => {
      const r = new ReplyStreamReader();
      const got = [];
      let prev = 0;
      for (const c of [...cuts.sort((a, b) => a - b), stream.length]) {
        r.push(Buffer.from(stream.subarray(prev, c)));
        prev = c;
        for (let m = r.next(); m !== null; m = r.next()) got.push(m);
      }
      assert.equal(got.length, 2);
      assert.deepEqual(got[0]!.reply, ok);
      assert.deepEqual(new Uint8Array(got[0]!.proof), new Uint8Array(proof));
      assert.deepEqual(got[1]!.reply, err);
      assert.equal(got[1]!.reply.error, "server_total_queue_full");
      assert.equal(got[1]!.reply.job_id, 12345678901234567890n);
      assert.equal(got[1]!.proof.length, 0);
      r.end();
    }),
    { numRuns: 50 },
  );
  assert.throws(() => encodeReplyFrames(ok, proof.subarray(1)), isProto("PROOF_LENGTH_MISMATCH"));
  // a peer whose proof frame disagrees with encoded_bytes
  const frames = encodeReplyFrames({ ...ok, encoded_bytes: 999 }, proof.subarray(0, 999));
  const lie = Buffer.concat([
    frames[0]!,
    encodeReplyFrames(ok, proof)
      .slice(1)
      .reduce((a, b) => Buffer.concat([a, b])),
  ]);
  const r = new ReplyStreamReader();
  r.push(lie);
  assert.throws(() => r.next(), isProto("PROOF_LENGTH_MISMATCH"));
  // truncated between JSON and proof
  const t = new ReplyStreamReader();
  t.push(encodeReplyFrames(ok, proof)[0]!);
  assert.equal(t.next(), null);
  assert.throws(() => t.end(), isProto("FRAME_TRUNCATED"));
  // missing field
  const bad = JSON.parse(
    JSON.stringify({
      ...ok,
      job_id: 1,
      batch_id: 1,
      server_received_unix_ns: 0,
      server_enqueued_unix_ns: 0,
      flush_unix_ns: 0,
      witness_start_unix_ns: 0,
      witness_end_unix_ns: 0,
      prove_end_unix_ns: 0,
      encode_end_unix_ns: 0,
      server_send_start_unix_ns: 0,
      server_queue_ns: 0,
      batch_witness_ns: 0,
      batch_prove_ns: 0,
      batch_encode_ns: 0,
    }),
  );
  delete bad.error;
  const br = new ReplyStreamReader();
  const body = Buffer.from(JSON.stringify(bad));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  br.push(Buffer.concat([head, body]));
  assert.throws(
    () => br.next(),
    (e: unknown) => isProto("BAD_REPLY")(e) && (e as ProtocolError).details.path === "$.error",
  );
});
