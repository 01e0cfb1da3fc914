/**
 * Aggregate proofs of profile v2 (docs/profile-v2.md §10): one proof for n operations of one kind
 * and configuration. The circuit is K = 2^k ≥ n copies of the prepared circuit side by side (copy
 * index = the top k variables of every layer), a partial batch is padded with the dummy operation
 * (`dummyRequest`), all K statements are bound before the first challenge, and the verifier's
 * wiring is that of one copy times the copy-index factor (`CopiesWiring`), so its cost does not
 * grow with K. The order of the requests is part of the statement.
 */
import { SsgkrError } from "../../errors.js";
import { extEq } from "../../field/extension.js";
import { digest, digestEquals, sponge } from "../../hash/digest.js";
import { currentHashBackend } from "../../hash/index.js";
import type { CircuitShape } from "../../gkr/shape.js";
import { CopiesWiring, mulFreeLayers } from "../../gkr/structured/copies.js";
import { evaluateStructuredCopies, proveCopiesGkr, residentCopies, valuesOf } from "../../gkr/structured/dp-prover.js";
import type { GkrProof } from "../../gkr/proof.js";
import { verifyGkr } from "../../gkr/verifier.js";
import { DuplexChallenger } from "../../transcript/challenger.js";
import { decodeAggregateV2, type V2EncodedAggregate } from "../../codec/v2/decode.js";
import { encodeAggregateV2 } from "../../codec/v2/encode.js";
import { V2DecodeError } from "../../codec/v2/errors.js";
import { V2_MAX_AGGREGATE } from "../../codec/v2/layout.js";
import type { OpRequest } from "../../smt/operation.js";
import { checkStatement } from "../../smt/semantics.js";
import { dummyRequest } from "../../smt/v2/dummy.js";
import { buildV2Inputs } from "../../smt/v2/input-batch.js";
import { mleEvalCopies } from "../../gkr/mle-copies.js";
import { SyncError } from "../../statement/errors.js";
import { guardedVerdict } from "../verify-steps.js";
import { opKindTag, type PublicInputs } from "../../statement/types.js";
import { V2_PROFILE, V2_PROOF_DOMAIN_TAG } from "./domains.js";
import { v2Identity } from "./encoded.js";
import type { PreparedV2 } from "./prepared.js";
import type { V2RejectCode } from "./verify.js";
import { assetIdLimbs, observePublicInputs } from "./statement-transcript.js";

/** Verdict of an aggregate: accepted, or the first failure, naming the operation where one is to blame. */
export type AggregateVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: V2RejectCode; readonly reason: string; readonly operation?: number };

/** Time per phase of one aggregate proof, in milliseconds. */
export interface AggregateTimings {
  readonly operations: number;
  readonly copies: number;
  /** Preparing the circuit of the copies (nothing is replicated: about 0). */
  readonly circuitMs: number;
  /** Input vectors and layer values of every copy (`evaluateMs` of it for the layer values). */
  readonly witnessMs: number;
  readonly evaluateMs: number;
  readonly proveMs: number;
  readonly encodeMs: number;
}

function copyBits(n: number): number {
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

function copiesShape(prepared: PreparedV2, k: number): CircuitShape {
  return {
    layerWidthBits: prepared.shape.layerWidthBits.map((b) => b + k),
    inputWidthBits: prepared.shape.inputWidthBits + k,
  };
}

/** The aggregate transcript after its statement part: every statement of the K copies in order. */
function aggregateTranscript(
  prepared: PreparedV2,
  n: number,
  k: number,
  statements: readonly PublicInputs[],
  claimedOutputs: ArrayLike<number>,
): DuplexChallenger {
  const shape = copiesShape(prepared, k);
  const t = DuplexChallenger.withDomain(V2_PROOF_DOMAIN_TAG);
  t.observeMany([
    V2_PROFILE,
    1,
    opKindTag(prepared.kind),
    prepared.config.depth,
    prepared.config.leafMaxFields,
    n,
    2 ** k,
    shape.inputWidthBits,
    shape.layerWidthBits.length,
  ]);
  for (const b of shape.layerWidthBits) t.observe(b);
  t.observeDigest(prepared.commitment);
  for (const s of statements) observePublicInputs(t, s);
  t.observeAllUnchecked(claimedOutputs);
  return t;
}

function padded(prepared: PreparedV2, requests: readonly OpRequest[]): OpRequest[] {
  const k = copyBits(requests.length);
  const dummy = dummyRequest(prepared.kind, prepared.config);
  return [...requests, ...Array.from({ length: 2 ** k - requests.length }, () => dummy)];
}

/** The operation index an input-vector error names (`buildV2Inputs` puts it in the details). */
function failingOperation(err: SsgkrError): number {
  const i = err.details["operation"];
  return typeof i === "number" ? i : 0;
}

/**
 * Proves n = requests.length operations (1..4096) of the prepared kind in one inner-proof-v2
 * aggregate (proof_kind 1). Invalid statements are proved as they are (the verifier rejects them).
 * @param onTimings receives the time per phase.
 * @throws SyncError `BAD_AGGREGATE` (count), `WRONG_KIND{operation}`, `WITNESS{operation}`.
 * @example
 *   const bytes = proveAggregate(prepareV2("membership"), requests);
 */
export function proveAggregate(
  prepared: PreparedV2,
  requests: readonly OpRequest[],
  onTimings?: (t: AggregateTimings) => void,
): Uint8Array {
  if (!Array.isArray(requests) || requests.length < 1 || requests.length > V2_MAX_AGGREGATE) {
    throw new SyncError(
      "BAD_AGGREGATE",
      `an aggregate proves 1..${V2_MAX_AGGREGATE} requests, got ${Array.isArray(requests) ? requests.length : typeof requests}`,
    );
  }
  requests.forEach((r, i) => {
    if (r?.operation?.kind !== prepared.kind)
      throw new SyncError(
        "WRONG_KIND",
        `request ${i} is of kind ${String(r?.operation?.kind)}, the prepared circuit of kind ${prepared.kind}`,
        { operation: i },
      );
  });
  const t0 = performance.now();
  const k = copyBits(requests.length);
  // The copies share the prepared circuit: nothing is replicated (the copy index is k extra variables).
  const t1 = performance.now();
  const all = padded(prepared, requests);
  let input: Uint32Array;
  try {
    input = buildV2Inputs(prepared.compiled.layout, all);
  } catch (err) {
    if (err instanceof SsgkrError) {
      const i = failingOperation(err);
      throw new SyncError("WITNESS", `witness of request ${i}: ${err.message}`, { operation: i, cause: err.code });
    }
    throw err;
  }
  const tEval = performance.now();
  // The layer vectors stay in kernel memory from their evaluation to the end of the proof.
  const keep = residentCopies();
  let proof: GkrProof, t2: number;
  try {
    const layers = evaluateStructuredCopies(prepared.compiled.circuit, k, input, keep);
    t2 = performance.now();
    const statements = all.map((r) => r.publicInputs);
    const transcript = aggregateTranscript(prepared, requests.length, k, statements, valuesOf(layers[0]!));
    ({ proof } = proveCopiesGkr(prepared.compiled.circuit, k, layers, transcript));
  } finally {
    keep?.recycle();
  }
  const t3 = performance.now();
  const bytes = encodeAggregateV2(
    v2Identity(prepared),
    requests.map((r) => statementCheck(r.publicInputs)),
    proof,
  );
  onTimings?.({
    operations: requests.length,
    copies: 2 ** k,
    circuitMs: t1 - t0,
    witnessMs: t2 - t1,
    evaluateMs: t2 - tEval,
    proveMs: t3 - t2,
    encodeMs: performance.now() - t3,
  });
  return bytes;
}

/**
 * Statement check of one operation (docs/profile-v2.md §10.3): the first two lanes of
 * sponge(old_root ‖ new_root ‖ op kind ‖ asset_id limbs ‖ value_digest ‖ 3 zeros). It lets the
 * verifier name the operation whose public inputs differ; soundness rests on the transcript,
 * which binds the full statements.
 */
export function statementCheck(pub: PublicInputs): [number, number] {
  const pre = new Uint32Array(32);
  statementPreimage(pub, pre, 0);
  const h = sponge(pre);
  return [h[0]!, h[1]!];
}

/** Writes the 32-element preimage of `statementCheck` at `pre[at..at+32)` (the last 3 stay zero). */
function statementPreimage(pub: PublicInputs, pre: Uint32Array, at: number): void {
  pre.set(digest(pub.oldRoot, "old_root"), at);
  pre.set(digest(pub.newRoot, "new_root"), at + 8);
  pre[at + 16] = pub.opKindTag;
  pre.set(assetIdLimbs(pub.assetId), at + 17);
  pre.set(digest(pub.valueDigest, "value_digest"), at + 21);
}

/**
 * The statement checks of many operations at once (docs/profile-v2.md §12): the same overwrite
 * sponge as `statementCheck`, block b of every preimage through one batched permutation call
 * (`permuteMany` of the thread's hash backend), four calls whatever n. Operation i's check is
 * lanes [2i, 2i + 2). Reference: `statementCheck` per operation (test/sync/v2/aggregate.test.ts).
 * @throws what `statementCheck` throws for a malformed statement (the verifier then falls back to
 *   the reference, operation by operation, so its verdicts stay those of the reference).
 */
export function statementChecks(pubs: readonly PublicInputs[]): Uint32Array {
  const n = pubs.length;
  const pre = new Uint32Array(32 * n);
  for (let i = 0; i < n; i++) statementPreimage(pubs[i]!, pre, 32 * i);
  const states = new Uint32Array(16 * n);
  const backend = currentHashBackend();
  for (let b = 0; b < 4; b++) {
    for (let i = 0; i < n; i++) states.set(pre.subarray(32 * i + 8 * b, 32 * i + 8 * b + 8), 16 * i);
    backend.permuteMany(states, n);
  }
  const out = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    out[2 * i] = states[16 * i]!;
    out[2 * i + 1] = states[16 * i + 1]!;
  }
  return out;
}

/** `statementChecks` of the requests, or null when one of them is malformed (the caller checks one by one). */
function batchedChecks(requests: readonly OpRequest[]): Uint32Array | null {
  try {
    return statementChecks(requests.map((r) => r.publicInputs));
  } catch {
    return null;
  }
}

const MUL_FREE = new WeakMap<object, boolean[]>();

/** `mulFreeLayers` of the prepared circuit, computed once per prepared circuit. */
function mulFreeOf(prepared: PreparedV2): boolean[] {
  const circuit = prepared.compiled.circuit;
  let flags = MUL_FREE.get(circuit);
  if (!flags) MUL_FREE.set(circuit, (flags = mulFreeLayers(circuit)));
  return flags;
}

function reject(code: V2RejectCode, reason: string, operation?: number): AggregateVerdict {
  return operation === undefined ? { ok: false, code, reason } : { ok: false, code, reason, operation };
}

function verifyUnguarded(prepared: PreparedV2, requests: readonly OpRequest[], bytes: Uint8Array): AggregateVerdict {
  let decoded: V2EncodedAggregate;
  try {
    decoded = decodeAggregateV2(bytes);
  } catch (e) {
    if (e instanceof V2DecodeError) return reject(`DECODE_${e.code}`, e.message);
    throw e;
  }
  const id = v2Identity(prepared);
  const d = decoded.identity;
  if (
    d.opKindTag !== id.opKindTag ||
    d.depth !== id.depth ||
    d.circuitVersion !== id.circuitVersion ||
    d.leafEncodingVersion !== id.leafEncodingVersion ||
    d.leafMaxFields !== id.leafMaxFields ||
    d.layoutId !== id.layoutId ||
    !digestEquals(d.commitment, id.commitment)
  ) {
    return reject("IDENTITY_MISMATCH", "the proof's circuit identity is not the prepared circuit's");
  }
  if (!Array.isArray(requests) || decoded.statementChecks.length !== requests.length) {
    return reject(
      "OPERATION_COUNT",
      `the proof carries ${decoded.statementChecks.length} operations, ${Array.isArray(requests) ? requests.length : 0} requests were given`,
    );
  }
  const checks = batchedChecks(requests);
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i]!;
    if (r?.operation?.kind !== prepared.kind)
      return reject("WRONG_KIND", `request ${i} is of kind ${String(r?.operation?.kind)}`, i);
    const [a, b] = checks === null ? statementCheck(r.publicInputs) : [checks[2 * i]!, checks[2 * i + 1]!];
    const [da, db] = decoded.statementChecks[i]!;
    if (a !== da || b !== db)
      return reject(
        "PUBLIC_INPUTS_MISMATCH",
        `operation ${i}: the proof was made for other public inputs than the request's`,
        i,
      );
    const st = checkStatement(r, prepared.config);
    if (!st.valid) return reject(st.code, `operation ${i}: ${st.message}`, i);
  }
  const k = copyBits(requests.length);
  const all = padded(prepared, requests);
  let input: Uint32Array;
  try {
    input = buildV2Inputs(prepared.compiled.layout, all);
  } catch (err) {
    if (err instanceof SsgkrError) {
      const i = failingOperation(err);
      return reject("INPUT_VECTOR", `operation ${i}: the input vector cannot be built: ${err.message}`, i);
    }
    throw err;
  }
  const shape = copiesShape(prepared, k);
  const zeros = new Uint32Array(2 ** shape.layerWidthBits[0]!);
  const transcript = aggregateTranscript(
    prepared,
    requests.length,
    k,
    all.map((r) => r.publicInputs),
    zeros,
  );
  const gkr = verifyGkr(
    shape,
    new CopiesWiring(prepared.wiring, k, mulFreeOf(prepared)),
    zeros,
    decoded.proof,
    transcript,
  );
  if (!gkr.ok) return reject(`GKR_${gkr.code}`, gkr.reason);
  const claim = gkr.inputClaim;
  const copies = {
    copyBits: k,
    copySizeBits: prepared.shape.inputWidthBits,
    used: prepared.compiled.layout.inputTotal,
  };
  const [atX, atY] = mleEvalCopies(input, copies, [claim.x, claim.y]);
  if (!extEq(atX!, claim.evalX)) return reject("INPUT_CLAIM_X", "MLE(input)(x*) differs from the last layer's eval_x");
  if (!extEq(atY!, claim.evalY)) return reject("INPUT_CLAIM_Y", "MLE(input)(y*) differs from the last layer's eval_y");
  return { ok: true };
}

/**
 * Verifies an aggregate against its requests, in order: decode (`DECODE_<code>`), identity
 * (`IDENTITY_MISMATCH`), operation count (`OPERATION_COUNT`), per operation in order its kind,
 * public inputs and native statement checks (the verdict names the operation), input vectors,
 * GKR (`GKR_<code>`), input claims. Never throws on malformed input.
 * @example
 *   verifyAggregate(prepared, requests, proveAggregate(prepared, requests)); // { ok: true }
 */
export function verifyAggregate(
  prepared: PreparedV2,
  requests: readonly OpRequest[],
  bytes: Uint8Array,
): AggregateVerdict {
  return guardedVerdict<AggregateVerdict>(
    () => verifyUnguarded(prepared, requests, bytes),
    (reason) => reject("MALFORMED_REQUEST", reason),
  );
}
