/**
 * Serving protocol 2 (profile v2): the served-aggregate proof frame (strict decoder, fuzzed),
 * version refusals between protocol 1 and 2 clients and servers, and the frontend's aggregate
 * checks on honest and forged replies — one aggregate verification per batch.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeProof } from "../../src/codec/decode.js";
import { DecodeError } from "../../src/codec/errors.js";
import { add } from "../../src/field/koalabear.js";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { prepareV2, type PreparedV2 } from "../../src/sync/v2/prepared.js";
import { proveAggregate } from "../../src/sync/v2/aggregate.js";
import { AggregateChecker } from "../../src/serve/load/aggregate-checker.js";
import { precheckReply } from "../../src/serve/load/checker.js";
import { VerifyPool } from "../../src/serve/load/verify-pool.js";
import { admitJob } from "../../src/serve/server/admission.js";
import { ProtocolError } from "../../src/serve/protocol/errors.js";
import { inputFromRequest } from "../../src/serve/protocol/input.js";
import { encodeJobFrame, type Job, type JobInput } from "../../src/serve/protocol/job.js";
import { stringifyJson } from "../../src/serve/protocol/json.js";
import { PROTOCOL_VERSION, PROTOCOL_VERSION_V2 } from "../../src/serve/protocol/limits.js";
import { baseReply, sha256Hex, type Reply } from "../../src/serve/protocol/reply.js";
import {
  decodeServedAggregate,
  SERVED_AGGREGATE_OVERHEAD,
  servedAggregateBatchPart,
  servedAggregateFor,
} from "../../src/serve/protocol/served-aggregate.js";

const DEPTH = 4;
const RUN = "t";
const ORIGIN = { hostId: "h", processId: 1 };
let prepared: PreparedV2;
let requests: OpRequest[];
let inputs: JobInput[];
let aggregate: Uint8Array;
let pool: VerifyPool;

before(async () => {
  prepared = prepareV2("membership", { depth: DEPTH });
  requests = [0, 1, 2].map((i) => corpusRequest("membership", i, { depth: DEPTH }));
  inputs = requests.map(inputFromRequest);
  aggregate = proveAggregate(prepared, requests);
  pool = new VerifyPool(1);
  await pool.attachV2(["membership"], DEPTH);
});

after(async () => {
  await pool.close();
});

function inputsJson(list: readonly JobInput[]): Uint8Array {
  return Buffer.from(stringifyJson(list), "utf8");
}

function served(index: number, agg = aggregate, list: readonly JobInput[] = inputs): Uint8Array {
  return servedAggregateFor(servedAggregateBatchPart(list.length, agg, inputsJson(list)), index);
}

function job(fixture: number, protocol = PROTOCOL_VERSION_V2): Job {
  return {
    protocol,
    run_id: RUN,
    job_id: BigInt(fixture),
    fixture_id: fixture,
    repeat: 1,
    warmup: false,
    scheduled_unix_ns: 1n,
    deadline_unix_ns: 2n,
    input: inputs[fixture]!,
  };
}

function reply(fixture: number, bytes: Uint8Array, protocol = PROTOCOL_VERSION_V2): Reply {
  return baseReply(job(fixture, protocol), ORIGIN, {
    batch_id: 1n,
    batch_size: 3,
    encoded_bytes: bytes.length,
    canonical_sha256: sha256Hex(bytes),
  });
}

const offered = (i: number) => ({ kind: "membership" as const, fixtureId: i, request: requests[i]! });

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ProtocolError, `a ProtocolError, got ${String(err)}`);
    return `${err.code}@${String(err.details["offset"])}`;
  }
  return "accepted";
}

test("a served aggregate decodes to its parts; every byte but the index is the batch part", () => {
  const bytes = served(2);
  assert.equal(bytes.length, SERVED_AGGREGATE_OVERHEAD + aggregate.length + inputsJson(inputs).length);
  const d = decodeServedAggregate(bytes);
  assert.equal(d.operations, 3);
  assert.equal(d.index, 2);
  assert.deepEqual(Uint8Array.from(d.aggregate), aggregate);
  assert.deepEqual(JSON.parse(Buffer.from(d.inputsJson).toString("utf8")).length, 3);
  assert.deepEqual(Uint8Array.from(decodeServedAggregate(served(0)).batchPart), Uint8Array.from(d.batchPart));
  assert.equal(Buffer.from(bytes.subarray(0, 8)).toString("latin1"), "SSGKRSAG");
  assert.equal(bytes[8]! | (bytes[9]! << 8), 2);
});

test("the served-aggregate decoder refuses every malformed field, naming its offset", () => {
  const good = served(1);
  const a = aggregate.length;
  const j = inputsJson(inputs).length;
  const edit = (offset: number, f: (b: Buffer) => void) => {
    const b = Buffer.from(good);
    f(b);
    return codeOf(() => decodeServedAggregate(b));
  };
  assert.equal(
    codeOf(() => decodeServedAggregate(good.subarray(0, 25))),
    "BAD_SERVED_AGGREGATE@0",
  );
  assert.equal(
    edit(0, (b) => (b[7] = 0x41)),
    "BAD_SERVED_AGGREGATE@0",
  );
  assert.equal(
    edit(8, (b) => b.writeUInt16LE(1, 8)),
    "BAD_SERVED_AGGREGATE@8",
  );
  assert.equal(
    edit(8, (b) => b.writeUInt16LE(3, 8)),
    "BAD_SERVED_AGGREGATE@8",
  );
  assert.equal(
    edit(10, (b) => b.writeUInt32LE(0, 10)),
    "BAD_SERVED_AGGREGATE@10",
  );
  assert.equal(
    edit(10, (b) => b.writeUInt32LE(4097, 10)),
    "BAD_SERVED_AGGREGATE@10",
  );
  assert.equal(
    edit(14, (b) => b.writeUInt32LE(good.length, 14)),
    "BAD_SERVED_AGGREGATE@14",
  );
  assert.equal(
    edit(14, (b) => b.writeUInt32LE(a - 1, 14)),
    `BAD_SERVED_AGGREGATE@${18 + a - 1}`,
  );
  assert.equal(
    codeOf(() => decodeServedAggregate(Buffer.concat([good, Buffer.from([0])]))),
    `BAD_SERVED_AGGREGATE@${18 + a}`,
  );
  assert.equal(
    edit(22 + a + j, (b) => b.writeUInt32LE(3, 22 + a + j)),
    `BAD_SERVED_AGGREGATE@${22 + a + j}`,
  );
  assert.equal(
    edit(22 + a + j, (b) => b.writeUInt32LE(2, 22 + a + j)),
    "accepted",
  );
  assert.throws(
    () => servedAggregateBatchPart(0, aggregate, inputsJson([])),
    (e: unknown) => e instanceof ProtocolError && e.code === "MESSAGE_TOO_LONG",
  );
});

test("fuzzed served aggregates: the decoder only ever throws BAD_SERVED_AGGREGATE", () => {
  const good = served(0);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(good.length), fc.nat(good.length), (noise, at, cut) => {
      for (const bytes of [
        noise,
        Buffer.concat([good.subarray(0, at), noise, good.subarray(at)]),
        good.subarray(0, cut),
      ]) {
        try {
          decodeServedAggregate(bytes);
        } catch (err) {
          assert.ok(err instanceof ProtocolError && err.code === "BAD_SERVED_AGGREGATE", String(err));
        }
      }
    }),
    { numRuns: 300 },
  );
});

test("versions: a v1 decoder and a v1 client refuse protocol 2 replies; a v2 server refuses protocol 1 jobs and vice versa", () => {
  assert.throws(
    () => decodeProof(served(0)),
    (e: unknown) => e instanceof DecodeError && e.code === "BadMagic",
  );
  const bytes = served(0);
  assert.match(precheckReply(reply(0, bytes), bytes, offered(0), RUN, new Map()) ?? "", /^binding: protocol 2 ≠ 1/);
  const frame = (protocol: number) => encodeJobFrame(job(0, protocol)).subarray(4);
  assert.equal(admitJob(frame(PROTOCOL_VERSION), DEPTH, PROTOCOL_VERSION_V2).status, "protocol_mismatch");
  assert.equal(admitJob(frame(PROTOCOL_VERSION_V2), DEPTH, PROTOCOL_VERSION_V2).status, "ok");
  assert.equal(admitJob(frame(PROTOCOL_VERSION_V2), DEPTH).status, "protocol_mismatch");
  // the served reply carries the job's protocol
  assert.equal(reply(0, bytes).protocol, 2);
});

test("the frontend accepts every job of an honest served batch with one aggregate verification", async () => {
  let calls = 0;
  const counting = Object.create(pool) as VerifyPool;
  counting.verifyAggregate = (...args) => {
    calls++;
    return pool.verifyAggregate(...args);
  };
  const checker = new AggregateChecker(counting, DEPTH);
  const verdicts = await Promise.all(
    [0, 1, 2].map((i) => checker.check(reply(i, served(i)), served(i), offered(i), RUN)),
  );
  assert.deepEqual(
    verdicts.map((v) => v.ok),
    [true, true, true],
  );
  assert.equal(calls, 1);
  assert.equal(verdicts.filter((v) => (v.verifyMs ?? 0) > 0).length, 1);
  assert.equal(checker.openBatches, 0);
  // a protocol 1 reply is refused by the v2 checker
  const v1 = await checker.check(reply(0, served(0), PROTOCOL_VERSION), served(0), offered(0), RUN);
  assert.match(v1.ok ? "" : v1.reason, /^binding: protocol 1 ≠ 2/);
});

function bumpInput(input: JobInput): JobInput {
  return { ...input, value_digest: [add(input.value_digest[0]!, 1), ...input.value_digest.slice(1)] };
}

test("the frontend rejects forged served aggregates", async () => {
  const check = async (i: number, bytes: Uint8Array, r: Reply = reply(i, bytes)) => {
    const v = await new AggregateChecker(pool, DEPTH).check(r, bytes, offered(i), RUN);
    return v.ok ? "accepted" : v.reason;
  };
  // another job's operation index: the proof covers operation 1, not the offered request
  assert.match(await check(0, served(1)), /^binding: operation 1 of the served aggregate is not the offered request/);
  // the offered request replaced in the list by another one (the aggregate is then of other statements)
  const others = [inputs[1]!, inputs[1]!, inputs[2]!];
  assert.match(await check(0, served(0, aggregate, others)), /^binding: operation 0/);
  // a true aggregate of other statements, with the offered request written into the list
  const other = proveAggregate(prepared, [
    corpusRequest("membership", 5, { depth: DEPTH }),
    requests[1]!,
    requests[2]!,
  ]);
  assert.match(await check(0, served(0, other)), /^verify: PUBLIC_INPUTS_MISMATCH/);
  // another operation's statement changed in the list
  assert.match(
    await check(0, served(0, aggregate, [inputs[0]!, bumpInput(inputs[1]!), inputs[2]!])),
    /^verify: PUBLIC_INPUTS_MISMATCH/,
  );
  // operations swapped, dropped or duplicated in the list
  assert.match(
    await check(0, served(0, aggregate, [inputs[0]!, inputs[2]!, inputs[1]!])),
    /^verify: PUBLIC_INPUTS_MISMATCH/,
  );
  assert.match(await check(0, served(0, aggregate, [inputs[0]!, inputs[1]!])), /^verify: OPERATION_COUNT/);
  // the aggregate with one byte appended, the reply's hash or kind wrong, a server error
  assert.match(await check(0, served(0, Buffer.concat([aggregate, Buffer.from([0])]))), /^verify: DECODE_/);
  const bytes = served(0);
  assert.match(await check(0, bytes, { ...reply(0, bytes), canonical_sha256: "00" }), /^sha256_mismatch/);
  assert.match(await check(0, bytes, { ...reply(0, bytes), kind: "update" }), /^binding: kind/);
  assert.match(await check(0, bytes, { ...reply(0, bytes), error: "prove: X: y" }), /^server_error: prove: X: y/);
  // inputs that are not JSON, not Job.inputs, or break an input rule
  const raw = (json: string) =>
    servedAggregateFor(servedAggregateBatchPart(3, aggregate, Buffer.from(json, "utf8")), 0);
  assert.match(await check(0, raw("[1,")), /^served_aggregate: the job inputs are not JSON/);
  assert.match(await check(0, raw("[1,2,3]")), /^served_aggregate: the job inputs are not a list of Job.input/);
  assert.match(
    await check(0, raw(stringifyJson([inputs[0]!, { ...inputs[1]!, siblings: [] }, inputs[2]!]))),
    /^served_aggregate: job input 1/,
  );
  assert.match(
    await check(0, raw(stringifyJson(inputs.slice(0, 2)))),
    /^served_aggregate: 2 job inputs for 3 operations/,
  );
  assert.match(await check(0, Buffer.from(aggregate)), /^served_aggregate: /);
});
