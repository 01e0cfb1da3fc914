/**
 * Composed prove (compat-v1 §13.1): input vector (§9.2) → all layer values → statement transcript
 * (§11 steps 1–5) → GKR proof (§10.4). The fresh and prepared paths give identical bytes.
 */
import { evaluateCircuitFast } from "../gkr/wasm/evaluate.js";
import { proveGkr } from "../gkr/prover.js";
import type { GkrProof } from "../gkr/proof.js";
import { SsgkrError } from "../errors.js";
import type { OpRequest } from "../smt/operation.js";
import { buildInputVectorFor } from "../smt/witness.js";
import type { SyncConfig } from "../smt/config.js";
import { type PreparedSync, prepare } from "./prepared.js";
import { statementTranscript } from "./statement-transcript.js";
import { SyncError } from "../statement/errors.js";
import type { PublicInputs } from "../statement/types.js";

/** A proof of one request: the public inputs it is about (copied from the request) and the GKR proof. */
export interface SyncResult {
  readonly publicInputs: PublicInputs;
  readonly proof: GkrProof;
}

/** The witness of one request: the input vector and every layer's values (outputs first). */
export interface SyncWitness {
  readonly input: Uint32Array;
  readonly layers: readonly Uint32Array[];
}

function checkKind(prepared: PreparedSync, request: OpRequest): void {
  if (request?.operation?.kind !== prepared.kind) {
    throw new SyncError(
      "WRONG_KIND",
      `request of kind ${String(request?.operation?.kind)} given to a circuit prepared for kind ${prepared.kind}`,
    );
  }
}

/**
 * Builds the witness (make_job_prepared): the input vector of §9.2 and all layer values.
 * @throws SyncError `WRONG_KIND`, or `WITNESS` wrapping the path-length / leaf-encoding error.
 */
export function buildWitness(prepared: PreparedSync, request: OpRequest): SyncWitness {
  checkKind(prepared, request);
  let input: Uint32Array;
  try {
    input = buildInputVectorFor(prepared.compiled.layout, prepared.config.leafMaxFields, request);
  } catch (err) {
    if (err instanceof SsgkrError) throw new SyncError("WITNESS", `witness: ${err.message}`, { cause: err.code });
    throw err;
  }
  return { input, layers: evaluateCircuitFast(prepared.circuit, input) };
}

/** Proves from a witness built by `buildWitness` for the same request. */
export function proveWitness(prepared: PreparedSync, request: OpRequest, witness: SyncWitness): SyncResult {
  checkKind(prepared, request);
  const pub = request.publicInputs;
  const publicInputs: PublicInputs = {
    oldRoot: Uint32Array.from(pub.oldRoot),
    newRoot: Uint32Array.from(pub.newRoot),
    opKindTag: pub.opKindTag,
    assetId: pub.assetId,
    valueDigest: Uint32Array.from(pub.valueDigest),
  };
  const transcript = statementTranscript(
    prepared.circuit,
    prepared.kind,
    prepared.config.depth,
    prepared.commitment,
    publicInputs,
    witness.layers[0]!,
  );
  const { proof } = proveGkr(prepared.circuit, witness.layers, transcript);
  return { publicInputs, proof };
}

/**
 * prove_sync_op_prepared: proves one request with a prepared circuit. Invalid statements are
 * proved as they are (the verifier rejects them); check with `checkOperation` first if needed.
 * @throws SyncError `WRONG_KIND`, `WITNESS`.
 */
export function provePrepared(prepared: PreparedSync, request: OpRequest): SyncResult {
  return proveWitness(prepared, request, buildWitness(prepared, request));
}

/** prove_sync_op: compiles and commits afresh, then proves (same bytes as the prepared path). */
export function proveSync(request: OpRequest, config: Partial<SyncConfig> = {}): SyncResult {
  return provePrepared(prepare(request.operation.kind, config), request);
}
