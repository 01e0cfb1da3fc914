/**
 * Forgery builders for the profile v2 verifier-check tests: small prepared v2 circuits (depth 2),
 * the statement transcripts written again from docs/profile-v2.md §7 and §10.3 (not with the
 * library's functions, so that a verifier whose transcript drifts from the spec rejects), a
 * prover that can claim zero outputs for any input, aggregates with chosen statement checks, and
 * the verifier's end-check views.
 */
import type { Ext } from "../../src/field/extension.js";
import { sponge } from "../../src/hash/digest.js";
import type { CircuitShape } from "../../src/gkr/shape.js";
import type { GkrProof } from "../../src/gkr/proof.js";
import { evaluateStructuredCircuit } from "../../src/gkr/structured/linear.js";
import { CopiesWiring, replicateStructuredCircuit } from "../../src/gkr/structured/copies.js";
import { proveStructuredGkr } from "../../src/gkr/structured/oracle.js";
import type { WiringOracle } from "../../src/gkr/wiring/oracle.js";
import { encodeAggregateV2 } from "../../src/codec/v2/encode.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { dummyRequest } from "../../src/smt/v2/dummy.js";
import { buildV2Input } from "../../src/smt/v2/input.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import type { SyncResult } from "../../src/sync/prove.js";
import { OpKind, type PublicInputs, opKindTag } from "../../src/statement/types.js";
import { v2Identity } from "../../src/sync/v2/encoded.js";
import { type PreparedV2, prepareV2 } from "../../src/sync/v2/prepared.js";
import { type EndCheckView, endCheckViewsOf } from "./forge.js";

export const DEPTH_V2 = 2;
export const KINDS_V2 = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;

const cache = new Map<string, PreparedV2>();

/** A prepared v2 circuit of `kind` (cached per test process). */
export function preparedV2(kind: OpKind, depth = DEPTH_V2, leafMaxFields = 31): PreparedV2 {
  const key = `${kind}/${depth}/${leafMaxFields}`;
  let p = cache.get(key);
  if (!p) cache.set(key, (p = prepareV2(kind, { depth, leafMaxFields })));
  return p;
}

/** Golden fixture F(kind, depth, key) (a fresh copy each call); keys 0..3 at depth 2. */
export function fixtureV2(kind: OpKind, key = 1n, depth = DEPTH_V2): OpRequest {
  return goldenFixture(kind, depth, key);
}

/** asset_id as four 16-bit limbs, least significant first (§7 step 4). */
function limbs(id: bigint): number[] {
  const u = BigInt.asUintN(64, id);
  return [0, 1, 2, 3].map((i) => Number((u >> BigInt(16 * i)) & 0xffffn));
}

function observeStatement(t: DuplexChallenger, pub: PublicInputs): void {
  for (const x of pub.oldRoot) t.observe(x);
  for (const x of pub.newRoot) t.observe(x);
  t.observe(pub.opKindTag);
  for (const l of limbs(pub.assetId)) t.observe(l);
  for (const x of pub.valueDigest) t.observe(x);
}

/** §7 steps 1–5, written from the spec. */
export function specTranscript(p: PreparedV2, pub: PublicInputs, outputs: ArrayLike<number>): DuplexChallenger {
  const t = DuplexChallenger.withDomain("statesync-gkr/v2");
  const widths = p.shape.layerWidthBits;
  for (const x of [2, opKindTag(p.kind), p.config.depth, p.config.leafMaxFields, p.shape.inputWidthBits, widths.length])
    t.observe(x);
  for (const w of widths) t.observe(w);
  for (const x of p.commitment) t.observe(x);
  observeStatement(t, pub);
  for (let i = 0; i < outputs.length; i++) t.observe(outputs[i]!);
  return t;
}

/** §10.3 up to the claimed outputs, written from the spec: n operations, K = 2^k statements. */
export function specAggregateTranscript(
  p: PreparedV2,
  n: number,
  k: number,
  statements: readonly PublicInputs[],
  outputs: ArrayLike<number>,
): DuplexChallenger {
  const t = DuplexChallenger.withDomain("statesync-gkr/v2");
  const widths = p.shape.layerWidthBits;
  for (const x of [
    2,
    1,
    opKindTag(p.kind),
    p.config.depth,
    p.config.leafMaxFields,
    n,
    2 ** k,
    p.shape.inputWidthBits + k,
    widths.length,
  ])
    t.observe(x);
  for (const w of widths) t.observe(w + k);
  for (const x of p.commitment) t.observe(x);
  for (const s of statements) observeStatement(t, s);
  for (let i = 0; i < outputs.length; i++) t.observe(outputs[i]!);
  return t;
}

/** Statement check of §10.3, written from the spec. */
export function specStatementCheck(pub: PublicInputs): [number, number] {
  const pre = new Uint32Array(32);
  pre.set(pub.oldRoot, 0);
  pre.set(pub.newRoot, 8);
  pre[16] = pub.opKindTag;
  pre.set(limbs(pub.assetId), 17);
  pre.set(pub.valueDigest, 21);
  const h = sponge(pre);
  return [h[0]!, h[1]!];
}

/**
 * A v2 proof of `request` with the spec transcript over `publicInputs` (default: the request's).
 * With `claimZero` the transcript observes zero outputs whatever the circuit outputs: for an
 * invalid input this is the honest GKR proof of the true outputs presented as a proof of zeros.
 */
export function proveV2With(
  p: PreparedV2,
  request: OpRequest,
  o: { claimZero?: boolean; publicInputs?: PublicInputs } = {},
): SyncResult {
  const input = buildV2Input(p.compiled.layout, request);
  const layers = evaluateStructuredCircuit(p.compiled.circuit, input);
  const pub = o.publicInputs ?? request.publicInputs;
  const outputs = o.claimZero ? new Uint32Array(layers[0]!.length) : layers[0]!;
  const { proof } = proveStructuredGkr(p.compiled.circuit, layers, specTranscript(p, pub, outputs));
  return { publicInputs: { ...pub }, proof };
}

/** The K = 2^k ≥ n statements of an aggregate: the requests, then the dummy operation (§10.2). */
export function paddedV2(p: PreparedV2, requests: readonly OpRequest[]): OpRequest[] {
  let k = 0;
  while (2 ** k < requests.length) k++;
  const out = [...requests];
  while (out.length < 2 ** k) out.push(dummyRequest(p.kind, p.config));
  return out;
}

export function copyBitsOf(n: number): number {
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

/**
 * An aggregate over `inputs` (the K copies' requests, padding included) proved with the spec
 * transcript over `statements` (default: the inputs' public inputs) for n = `n` operations, and
 * encoded with `checks` (default: the spec statement checks of the first n statements).
 */
export function proveAggregateWith(
  p: PreparedV2,
  inputs: readonly OpRequest[],
  n: number,
  o: {
    claimZero?: boolean;
    statements?: readonly PublicInputs[];
    checks?: readonly (readonly [number, number])[];
    edit?: (proof: GkrProof) => GkrProof;
  } = {},
): Uint8Array {
  const k = copyBitsOf(inputs.length);
  const circuit = replicateStructuredCircuit(p.compiled.circuit, k);
  const size = 2 ** p.shape.inputWidthBits;
  const all = new Uint32Array(size * inputs.length);
  inputs.forEach((r, i) => all.set(buildV2Input(p.compiled.layout, r), i * size));
  const layers = evaluateStructuredCircuit(circuit, all);
  const statements = o.statements ?? inputs.map((r) => r.publicInputs);
  const outputs = o.claimZero ? new Uint32Array(layers[0]!.length) : layers[0]!;
  const { proof } = proveStructuredGkr(circuit, layers, specAggregateTranscript(p, n, k, statements, outputs));
  const checks = o.checks ?? statements.slice(0, n).map(specStatementCheck);
  return encodeAggregateV2(v2Identity(p), checks, o.edit ? o.edit(proof) : proof);
}

/** The end-check views of a single v2 proof's verification (as verifyV2 runs it). */
export function endCheckViewsV2(p: PreparedV2, pub: PublicInputs, proof: GkrProof): EndCheckView[] {
  const zeros = new Uint32Array(2 ** p.shape.layerWidthBits[0]!);
  return endCheckViewsOf(p.shape, p.wiring, zeros, proof, specTranscript(p, pub, zeros));
}

/** The end-check views of an aggregate's verification over K = `copies` statements. */
export function endCheckViewsAggregate(
  p: PreparedV2,
  n: number,
  statements: readonly PublicInputs[],
  proof: GkrProof,
): EndCheckView[] {
  const k = copyBitsOf(statements.length);
  const shape: CircuitShape = {
    layerWidthBits: p.shape.layerWidthBits.map((b) => b + k),
    inputWidthBits: p.shape.inputWidthBits + k,
  };
  const zeros = new Uint32Array(2 ** shape.layerWidthBits[0]!);
  const wiring: WiringOracle = new CopiesWiring(p.wiring, k);
  return endCheckViewsOf(shape, wiring, zeros, proof, specAggregateTranscript(p, n, k, statements, zeros));
}

/** The concatenated input vectors of an aggregate's K copies. */
export function aggregateInput(p: PreparedV2, inputs: readonly OpRequest[]): Uint32Array {
  const size = 2 ** p.shape.inputWidthBits;
  const all = new Uint32Array(size * inputs.length);
  inputs.forEach((r, i) => all.set(buildV2Input(p.compiled.layout, r), i * size));
  return all;
}

export type { Ext };
