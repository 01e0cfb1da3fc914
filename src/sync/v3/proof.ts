/**
 * Profile v3 proofs (docs/profile-v3.md §5): an aggregate of n operations of one kind (n ≤ 4,096,
 * padded to K = 2^k copies with the prepared dummy), proved by GKR over the copies with the
 * committed halves of the input vector committed by WHIR before the first challenge and opened at
 * the GKR's two input points. The verifier holds only the statements: it builds the public halves
 * itself and never sees a sibling, accumulator or permutation state.
 *
 * Transcript (§5.2): new(`statesync-gkr/v3`); observe profile 3, proof kind, op kind tag, depth,
 * leaf bound, n, K, input width bits + k, layer count, per layer width bits + k; the circuit
 * commitment; the n statement digests (8 lanes each); then the WHIR commitment (docs/pcs.md §6.1:
 * its root, then its out-of-domain samples and answers); the GKR schedule (the claimed outputs are
 * zero by definition, a constant of the circuit, and are not absorbed); the WHIR opening of the two committed claims (§5.3).
 */
import { SsgkrError } from "../../errors.js";
import { DuplexChallenger } from "../../transcript/challenger.js";
import { digestEquals, type Digest } from "../../hash/digest.js";
import { CopiesWiring } from "../../gkr/structured/copies.js";
import { evaluateStructuredCopies, proveCopiesGkr, residentCopies } from "../../gkr/structured/dp-prover.js";
import { verifyGkr, ZERO_OUTPUTS } from "../../gkr/verifier.js";
import type { CircuitShape } from "../../gkr/shape.js";
import { acceptedWhirSets, type WhirVerifyOptions } from "../../pcs/api.js";
import { decodeWhirCommitment, decodeWhirProof, encodeWhirCommitment, encodeWhirProof } from "../../pcs/codec.js";
import { DEFAULT_WHIR_SET, type WhirSetId } from "../../pcs/params.js";
import { whirCommitOn, whirOpenOn } from "../../pcs/prover.js";
import { whirReadCommitmentOn, whirVerifyOn } from "../../pcs/verifier.js";
import { PcsError } from "../../pcs/errors.js";
import type { OpRequest } from "../../smt/operation.js";
import { buildV3Inputs, committedHalves, v3StatementOf } from "../../smt/v3/input.js";
import { publicHalf, statementDigests, type V3OldLeafRule, type V3Statement } from "../../smt/v3/statement.js";
import { SyncError } from "../../statement/errors.js";
import { OpKind, opKindTag } from "../../statement/types.js";
import {
  V3_CIRCUIT_VERSION,
  V3_LAYOUT_ID,
  V3_LEAF_ENCODING_VERSION,
  V3_MAX_OPERATIONS,
  V3_PROOF_KIND_AGGREGATE,
  V3_PROOF_KIND_BLOCK,
  type V3CircuitIdentity,
} from "../../codec/v3/layout.js";
import { decodeV3Message, encodeV3Message, type V3Message } from "../../codec/v3/message.js";
import { V3DecodeError } from "../../codec/v3/errors.js";
import { identityEqual } from "../v2/encoded.js";
import { V3_PROFILE, V3_PROOF_DOMAIN_TAG } from "./domains.js";
import type { V3RejectCode, V3Verdict } from "./verdict.js";
import { committedClaims, publicEvals, publicTable } from "./input-claims.js";
import type { PreparedV3 } from "./prepared.js";

/** Time per phase of one v3 proof, in milliseconds. */
export interface V3Timings {
  readonly operations: number;
  readonly copies: number;
  /** Input vectors (natively hashed paths) and statement digests. */
  readonly witnessMs: number;
  /** The WHIR commitment to the committed halves. */
  readonly commitMs: number;
  /** Layer values of every copy. */
  readonly evaluateMs: number;
  readonly gkrMs: number;
  /** The WHIR opening at the two input points. */
  readonly openMs: number;
  readonly encodeMs: number;
}

/** Options of the v3 provers. */
export interface V3ProveOptions {
  /** The WHIR parameter set (default `"cb100-r4"`, docs/pcs.md §5). */
  readonly pcsSet?: WhirSetId;
  /** Update aggregates: the old-leaf rule of each operation (default `any`). */
  readonly rules?: readonly V3OldLeafRule[];
  readonly onTimings?: (t: V3Timings) => void;
}

/** Options of the v3 verifiers: the weakest WHIR regime accepted (default `"conjectured"`) and extra sets. */
export type V3VerifyOptions = WhirVerifyOptions;

function copyBits(n: number): number {
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

function copiesShape(prepared: PreparedV3, k: number): CircuitShape {
  return {
    layerWidthBits: prepared.shape.layerWidthBits.map((b) => b + k),
    inputWidthBits: prepared.shape.inputWidthBits + k,
  };
}

/** The identity a v3 proof of this prepared circuit carries. */
export function v3Identity(prepared: PreparedV3): V3CircuitIdentity {
  return {
    opKindTag: opKindTag(prepared.kind),
    depth: prepared.config.depth,
    circuitVersion: V3_CIRCUIT_VERSION,
    leafEncodingVersion: V3_LEAF_ENCODING_VERSION,
    leafMaxFields: prepared.config.leafMaxFields,
    layoutId: V3_LAYOUT_ID,
    commitment: prepared.commitment,
  };
}

function statementTranscript(
  prepared: PreparedV3,
  proofKind: number,
  n: number,
  k: number,
  digests: Uint32Array,
): DuplexChallenger {
  const shape = copiesShape(prepared, k);
  const t = DuplexChallenger.withDomain(V3_PROOF_DOMAIN_TAG);
  t.observeMany([
    V3_PROFILE,
    proofKind,
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
  t.observeAllUnchecked(digests);
  return t;
}

function checksOf(digests: Uint32Array, n: number): [number, number][] {
  return Array.from({ length: n }, (_, i) => [digests[8 * i]!, digests[8 * i + 1]!] as [number, number]);
}

function failingOperation(err: SsgkrError): number {
  const i = err.details["operation"];
  return typeof i === "number" ? i : 0;
}

/**
 * Proves the statements of `requests` in one inner-proof-v3 message (shared by aggregates and
 * blocks). Invalid witnesses are proved as they are (the verifier rejects them).
 */
function proveMessage(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  proofKind: 1 | 2,
  roots: readonly Digest[],
  options: V3ProveOptions,
): Uint8Array {
  const n = Array.isArray(requests) ? requests.length : 0;
  if (n < 1 || n > V3_MAX_OPERATIONS)
    throw new SyncError(
      "BAD_AGGREGATE",
      `a v3 proof covers 1..${V3_MAX_OPERATIONS} operations, got ${Array.isArray(requests) ? n : typeof requests}`,
    );
  requests.forEach((r, i) => {
    if (r?.operation?.kind !== prepared.kind)
      throw new SyncError(
        "WRONG_KIND",
        `request ${i} is of kind ${String(r?.operation?.kind)}, the prepared circuit of kind ${prepared.kind}`,
        { operation: i },
      );
  });
  const rules = options.rules ?? [];
  const t0 = performance.now();
  const layout = prepared.compiled.layout;
  const k = copyBits(n);
  const statements = requests.map((r, i) => v3StatementOf(r, rules[i]));
  const allRequests = [...requests, ...Array.from({ length: 2 ** k - n }, () => prepared.dummy.request)];
  const allStatements = [...statements, ...Array.from({ length: 2 ** k - n }, () => prepared.dummy.statement)];
  let input: Uint32Array;
  try {
    input = buildV3Inputs(layout, allRequests, allStatements);
  } catch (err) {
    if (err instanceof SsgkrError) {
      const i = failingOperation(err);
      throw new SyncError("WITNESS", `witness of request ${i}: ${err.message}`, { operation: i, cause: err.code });
    }
    throw err;
  }
  const halves = statements.map((st) => publicHalf(layout, st));
  const digests = statementDigests(
    layout,
    statements.map((s) => s.key),
    halves,
  );
  const t1 = performance.now();
  const transcript = statementTranscript(prepared, proofKind, n, k, digests);
  const state = whirCommitOn(transcript, committedHalves(layout, input), { set: options.pcsSet ?? DEFAULT_WHIR_SET });
  const t2 = performance.now();
  const keep = residentCopies();
  let gkr, t3: number;
  try {
    const layers = evaluateStructuredCopies(prepared.compiled.circuit, k, input, keep);
    t3 = performance.now();
    gkr = proveCopiesGkr(prepared.compiled.circuit, k, layers, transcript);
  } finally {
    keep?.release();
  }
  const t4 = performance.now();
  const table = publicTable(layout, [
    ...halves,
    ...Array.from({ length: 2 ** k - n }, () => prepared.dummy.publicHalf),
  ]);
  const claim = gkr.inputClaim;
  const [pubX, pubY] = publicEvals(layout, table, [claim.x, claim.y]);
  const split = committedClaims(k, claim, pubX!, pubY!);
  const claims = "claims" in split ? split.claims : [];
  const opening = encodeWhirProof(whirOpenOn(transcript, state, claims));
  const t5 = performance.now();
  const bytes = encodeV3Message({
    identity: v3Identity(prepared),
    proofKind,
    statementChecks: checksOf(digests, n),
    roots,
    commitment: encodeWhirCommitment(state.commitment),
    proof: gkr.proof,
    opening,
  });
  options.onTimings?.({
    operations: n,
    copies: 2 ** k,
    witnessMs: t1 - t0,
    commitMs: t2 - t1,
    evaluateMs: t3 - t2,
    gkrMs: t4 - t3,
    openMs: t5 - t4,
    encodeMs: performance.now() - t5,
  });
  return bytes;
}

/**
 * Proves n = requests.length operations (1..4096) of the prepared kind in one inner-proof-v3
 * aggregate (proof_kind 1), verifiable from the statements alone (`verifyAggregateV3`).
 * @throws SyncError `BAD_AGGREGATE` (count), `WRONG_KIND{operation}`, `WITNESS{operation}`; PcsError
 *   `PCS_UNKNOWN_SET`, `PCS_TOO_LARGE`.
 * @example
 *   const bytes = proveAggregateV3(prepareV3("membership"), requests);
 */
export function proveAggregateV3(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  options: V3ProveOptions = {},
): Uint8Array {
  return proveMessage(prepared, requests, V3_PROOF_KIND_AGGREGATE, [], options);
}

/**
 * Proves a block of n chained updates (update i's new root = update i + 1's old root) as one
 * inner-proof-v3 block (proof_kind 2), carrying the n − 1 intermediate roots; verifiable from the
 * two outer roots and the updates (`verifyBlockV3`).
 * @throws SyncError `BAD_BLOCK{operation}` (not chained), and what `proveAggregateV3` throws.
 */
export function proveBlockV3(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  options: V3ProveOptions = {},
): Uint8Array {
  if (prepared.kind !== OpKind.Update)
    throw new SyncError("WRONG_KIND", `a block is made of updates; the prepared circuit is of kind ${prepared.kind}`);
  if (!Array.isArray(requests) || requests.length < 1)
    throw new SyncError("BAD_BLOCK", "a block has at least one update");
  for (let i = 1; i < requests.length; i++) {
    if (!digestEquals(requests[i - 1]!.publicInputs.newRoot, requests[i]!.publicInputs.oldRoot)) {
      throw new SyncError("BAD_BLOCK", `update ${i}'s old root is not update ${i - 1}'s new root`, { operation: i });
    }
  }
  const roots = requests.slice(0, -1).map((r) => Uint32Array.from(r.publicInputs.newRoot));
  return proveMessage(prepared, requests, V3_PROOF_KIND_BLOCK, roots, options);
}

function reject(code: V3RejectCode, reason: string, operation?: number): V3Verdict {
  return operation === undefined ? { ok: false, code, reason } : { ok: false, code, reason, operation };
}

/** Decodes a v3 message of one proof kind, or the rejection. */
export function decodeV3OrReject(bytes: Uint8Array, proofKind: 1 | 2): V3Message | V3Verdict {
  let m: V3Message;
  try {
    m = decodeV3Message(bytes);
  } catch (e) {
    if (e instanceof V3DecodeError) return reject(`DECODE_${e.code}`, e.message);
    throw e;
  }
  if (m.proofKind !== proofKind)
    return reject(
      "PROOF_KIND",
      `the proof is ${m.proofKind === V3_PROOF_KIND_BLOCK ? "a block" : "an aggregate"} (proof_kind ${m.proofKind}); ${proofKind === V3_PROOF_KIND_BLOCK ? "a block" : "an aggregate"} was expected`,
    );
  return m;
}

/** Verifies a decoded message against the statements (every check after decoding, in order). */
export function verifyV3Message(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  m: V3Message,
  options: V3VerifyOptions,
): V3Verdict {
  if (!identityEqual(m.identity, v3Identity(prepared)))
    return reject("IDENTITY_MISMATCH", "the proof's circuit identity is not the prepared circuit's");
  const n = m.statementChecks.length;
  if (!Array.isArray(statements) || statements.length !== n)
    return reject(
      "OPERATION_COUNT",
      `the proof carries ${n} operations, ${Array.isArray(statements) ? statements.length : 0} statements were given`,
    );
  const layout = prepared.compiled.layout;
  const halves: Uint32Array[] = [];
  for (let i = 0; i < n; i++) {
    const st = statements[i]!;
    if (st?.kind !== prepared.kind)
      return reject(
        "WRONG_KIND",
        `statement ${i} is of kind ${String(st?.kind)}, the prepared circuit of kind ${prepared.kind}`,
        i,
      );
    try {
      halves.push(publicHalf(layout, st));
    } catch (e) {
      if (e instanceof SsgkrError) return reject("BAD_STATEMENT", `statement ${i}: ${e.message}`, i);
      throw e;
    }
  }
  const digests = statementDigests(
    layout,
    statements.map((s) => s.key),
    halves,
  );
  for (let i = 0; i < n; i++) {
    const [a, b] = m.statementChecks[i]!;
    if (digests[8 * i] !== a || digests[8 * i + 1] !== b)
      return reject(
        "PUBLIC_INPUTS_MISMATCH",
        `operation ${i}: the proof was made for another statement than the one given`,
        i,
      );
  }
  const k = copyBits(n);
  const commitment = decodeWhirCommitment(m.commitment);
  const accepted = acceptedWhirSets(options);
  if (!accepted.includes(commitment.set))
    return reject(
      "PCS_SET_NOT_ACCEPTED",
      `the commitment names set ${commitment.set}; this verifier accepts ${accepted.join(", ")}`,
    );
  const m0 = k + layout.inputBits - 1;
  if (commitment.numVariables !== m0 || commitment.width !== 1)
    return reject(
      "COMMITMENT_SHAPE",
      `the commitment is to ${commitment.numVariables} variables of width ${commitment.width}; the committed halves have ${m0} variables of width 1`,
    );
  const opening = decodeWhirProof(m.opening);
  if (opening.set !== commitment.set)
    return reject("PCS_SET_NOT_ACCEPTED", `the opening names set ${opening.set}, the commitment ${commitment.set}`);
  const transcript = statementTranscript(prepared, m.proofKind, n, k, digests);
  let read;
  try {
    read = whirReadCommitmentOn(transcript, commitment);
  } catch (e) {
    if (e instanceof PcsError) return reject("PCS_SHAPE", e.message);
    throw e;
  }
  const shape = copiesShape(prepared, k);
  const gkr = verifyGkr(
    shape,
    new CopiesWiring(prepared.wiring, k, [...prepared.mulFree]),
    ZERO_OUTPUTS,
    m.proof,
    transcript,
  );
  if (!gkr.ok) return reject(`GKR_${gkr.code}`, gkr.reason);
  const table = publicTable(layout, [
    ...halves,
    ...Array.from({ length: 2 ** k - n }, () => prepared.dummy.publicHalf),
  ]);
  const claim = gkr.inputClaim;
  const [pubX, pubY] = publicEvals(layout, table, [claim.x, claim.y]);
  const split = committedClaims(k, claim, pubX!, pubY!);
  if ("fails" in split)
    return reject(
      split.fails === "x" ? "INPUT_CLAIM_X" : "INPUT_CLAIM_Y",
      `the input claim at ${split.fails}* lies on the public half and differs from the statements' MLE there`,
    );
  const verdict = whirVerifyOn(transcript, read, split.claims, opening);
  return verdict.ok ? { ok: true } : reject(verdict.code, `the opening of the committed halves: ${verdict.reason}`);
}

function guarded(run: () => V3Verdict): V3Verdict {
  try {
    return run();
  } catch (err) {
    if (err instanceof SsgkrError || err instanceof TypeError || err instanceof RangeError)
      return reject("MALFORMED_REQUEST", `malformed statement or proof: ${(err as Error).message}`);
    throw err;
  }
}

/**
 * Verifies an inner-proof-v3 aggregate against the statements alone, in order: decode
 * (`DECODE_<code>`), proof kind (`PROOF_KIND`), identity (`IDENTITY_MISMATCH`), count
 * (`OPERATION_COUNT`), per statement in order its kind and form (`WRONG_KIND`, `BAD_STATEMENT`) and
 * its check (`PUBLIC_INPUTS_MISMATCH`) — these name the operation —, the commitment's set and shape
 * (`PCS_SET_NOT_ACCEPTED`, `COMMITMENT_SHAPE`), GKR (`GKR_<code>`), the input claims
 * (`INPUT_CLAIM_X`/`Y`), the opening (`PCS_<…>`). Never throws on malformed input.
 * @example
 *   verifyAggregateV3(prepared, statements, proveAggregateV3(prepared, requests)); // { ok: true }
 */
export function verifyAggregateV3(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  bytes: Uint8Array,
  options: V3VerifyOptions = {},
): V3Verdict {
  return guarded(() => {
    const m = decodeV3OrReject(bytes, V3_PROOF_KIND_AGGREGATE);
    if ("ok" in m) return m;
    return verifyV3Message(prepared, statements, m, options);
  });
}

/** One update of a block as the verifier knows it: the key, the new leaf and the old leaf's rule. */
export interface V3BlockUpdate {
  readonly key: bigint;
  readonly newLeaf: import("../../smt/leaf.js").Leaf;
  readonly oldLeaf: V3OldLeafRule;
}

/**
 * Verifies an inner-proof-v3 block from the two outer roots and the updates alone: update i's
 * statement takes its old root from R_A (i = 0) or the proof's root i − 1, its new root from the
 * proof's root i or R_B (i = n − 1), so the chain holds by construction; a wrong outer root, a
 * replaced, dropped, swapped or duplicated update is rejected (the statement checks name the
 * first operation whose statement differs from the prover's). Codes: `EMPTY_BLOCK`, then those of
 * `verifyAggregateV3`.
 * @example
 *   verifyBlockV3(prepared, { fromRoot, toRoot }, updates, bytes); // { ok: true }
 */
export function verifyBlockV3(
  prepared: PreparedV3,
  roots: { readonly fromRoot: Digest; readonly toRoot: Digest },
  updates: readonly V3BlockUpdate[],
  bytes: Uint8Array,
  options: V3VerifyOptions = {},
): V3Verdict {
  return guarded(() => {
    if (!Array.isArray(updates) || updates.length === 0)
      return reject("EMPTY_BLOCK", "a block has at least one update");
    const m = decodeV3OrReject(bytes, V3_PROOF_KIND_BLOCK);
    if ("ok" in m) return m;
    if (m.roots.length !== updates.length - 1)
      return reject("OPERATION_COUNT", `the proof carries ${m.roots.length + 1} updates, ${updates.length} were given`);
    const chain = [roots.fromRoot, ...m.roots, roots.toRoot];
    const statements: V3Statement[] = updates.map((u, i) => ({
      kind: OpKind.Update,
      oldRoot: chain[i]!,
      newRoot: chain[i + 1]!,
      key: u.key,
      newLeaf: u.newLeaf,
      oldLeaf: u.oldLeaf,
    }));
    return verifyV3Message(prepared, statements, m, options);
  });
}
