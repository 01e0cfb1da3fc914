/**
 * The proof frame of serving protocol 2 (docs/serving.md "Profile v2", docs/profile-v2.md §10.5):
 * a served aggregate — the inner-proof-v2 aggregate of the job's batch, the batch's job inputs in
 * operation order, and the job's own operation index. All integers little-endian.
 *
 * | Offset | Size | Field |
 * |---|---|---|
 * | 0 | 8 | magic `SSGKRSAG` |
 * | 8 | 2 | envelope version 2 (u16) |
 * | 10 | 4 | operation count n (u32, 1..4096) |
 * | 14 | 4 | A = aggregate length (u32) |
 * | 18 | A | inner-proof-v2 aggregate (proof_kind 1) of the n operations |
 * | 18 + A | 4 | J = inputs length (u32) |
 * | 22 + A | J | UTF-8 JSON array of the n `Job.input` objects, operation order |
 * | 22 + A + J | 4 | operation index i (u32, < n) |
 *
 * Total 26 + A + J bytes. Bytes 0 … 22 + A + J − 1 (the batch part) are the same in every reply of
 * the batch, so a client verifies one aggregate once per batch part.
 */
import { ProtocolError } from "./errors.js";
import { MAX_PROOF_BYTES } from "./limits.js";

/** ASCII magic of a served aggregate. */
export const SERVED_AGGREGATE_MAGIC = "SSGKRSAG";
/** Envelope version of a served aggregate (= the profile). */
export const SERVED_AGGREGATE_VERSION = 2;
/** Most operations of one served aggregate (docs/profile-v2.md §10). */
export const SERVED_AGGREGATE_MAX_OPERATIONS = 4096;
/** Bytes of the envelope around the aggregate and the inputs. */
export const SERVED_AGGREGATE_OVERHEAD = 26;

const MAGIC = new TextEncoder().encode(SERVED_AGGREGATE_MAGIC);

/** A decoded served aggregate; `aggregate` and `inputsJson` are views of the decoded bytes. */
export interface ServedAggregate {
  readonly operations: number;
  readonly aggregate: Uint8Array;
  readonly inputsJson: Uint8Array;
  readonly index: number;
  /** The batch part: every byte but the trailing index. */
  readonly batchPart: Uint8Array;
}

/**
 * The batch part of a served aggregate: header, aggregate, inputs (`servedAggregateFor` appends
 * the index per job).
 * @throws ProtocolError `MESSAGE_TOO_LONG` above the 16 MiB proof frame bound or a bad count.
 */
export function servedAggregateBatchPart(
  operations: number,
  aggregate: Uint8Array,
  inputsJson: Uint8Array,
): Uint8Array {
  if (!Number.isSafeInteger(operations) || operations < 1 || operations > SERVED_AGGREGATE_MAX_OPERATIONS) {
    throw new ProtocolError(
      "MESSAGE_TOO_LONG",
      `a served aggregate carries 1..${SERVED_AGGREGATE_MAX_OPERATIONS} operations, got ${operations}`,
      { operations },
    );
  }
  const total = SERVED_AGGREGATE_OVERHEAD + aggregate.length + inputsJson.length;
  if (total > MAX_PROOF_BYTES) {
    throw new ProtocolError(
      "MESSAGE_TOO_LONG",
      `a served aggregate of ${total} bytes exceeds the bound of ${MAX_PROOF_BYTES} bytes`,
      { length: total, limit: MAX_PROOF_BYTES },
    );
  }
  const out = Buffer.alloc(total - 4);
  out.set(MAGIC, 0);
  out.writeUInt16LE(SERVED_AGGREGATE_VERSION, 8);
  out.writeUInt32LE(operations, 10);
  out.writeUInt32LE(aggregate.length, 14);
  out.set(aggregate, 18);
  out.writeUInt32LE(inputsJson.length, 18 + aggregate.length);
  out.set(inputsJson, 22 + aggregate.length);
  return out;
}

/** The served aggregate of operation `index`: the batch part and the index (one copy). */
export function servedAggregateFor(batchPart: Uint8Array, index: number): Uint8Array {
  const out = Buffer.alloc(batchPart.length + 4);
  out.set(batchPart, 0);
  out.writeUInt32LE(index, batchPart.length);
  return out;
}

/**
 * Strict decoder of a served aggregate, in this order: length ≥ 26, magic, version 2, count
 * 1..4096, A fits, J fits, the total is exactly 26 + A + J, index < n.
 * @throws ProtocolError `BAD_SERVED_AGGREGATE` with `details.offset` of the offending field.
 */
export function decodeServedAggregate(bytes: Uint8Array): ServedAggregate {
  const fail = (offset: number, message: string): never => {
    throw new ProtocolError("BAD_SERVED_AGGREGATE", `served aggregate: ${message}`, { offset });
  };
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (b.length < SERVED_AGGREGATE_OVERHEAD)
    fail(0, `${b.length} bytes, shorter than the ${SERVED_AGGREGATE_OVERHEAD}-byte envelope`);
  for (let i = 0; i < 8; i++) if (b[i] !== MAGIC[i]) fail(0, `bad magic (not ${SERVED_AGGREGATE_MAGIC})`);
  const version = b.readUInt16LE(8);
  if (version !== SERVED_AGGREGATE_VERSION)
    fail(8, `unsupported envelope version ${version} (this client reads ${SERVED_AGGREGATE_VERSION})`);
  const n = b.readUInt32LE(10);
  if (n < 1 || n > SERVED_AGGREGATE_MAX_OPERATIONS)
    fail(10, `operation count ${n} outside 1..${SERVED_AGGREGATE_MAX_OPERATIONS}`);
  const a = b.readUInt32LE(14);
  if (a > b.length - SERVED_AGGREGATE_OVERHEAD) fail(14, `aggregate length ${a} exceeds the bytes left`);
  const j = b.readUInt32LE(18 + a);
  if (j !== b.length - SERVED_AGGREGATE_OVERHEAD - a)
    fail(18 + a, `inputs length ${j}, ${b.length - SERVED_AGGREGATE_OVERHEAD - a} bytes left for them`);
  const index = b.readUInt32LE(22 + a + j);
  if (index >= n) fail(22 + a + j, `operation index ${index} not below the count ${n}`);
  return {
    operations: n,
    aggregate: b.subarray(18, 18 + a),
    inputsJson: b.subarray(22 + a, 22 + a + j),
    index,
    batchPart: b.subarray(0, 22 + a + j),
  };
}
