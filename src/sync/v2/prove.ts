/**
 * Profile v2 prove (docs/profile-v2.md §6–§7): input vector (§5.1) → layer values → statement
 * transcript → GKR proof with the structured oracle.
 */
import { SsgkrError } from "../../errors.js";
import { padInput } from "../../gkr/circuit.js";
import { evaluateStructuredCopies } from "../../gkr/structured/dp-prover.js";
import { proveStructuredGkr } from "../../gkr/structured/oracle.js";
import type { OpRequest } from "../../smt/operation.js";
import { buildV2Inputs } from "../../smt/v2/input-batch.js";
import { SyncError } from "../../statement/errors.js";
import type { SyncResult } from "../prove.js";
import type { PublicInputs } from "../../statement/types.js";
import type { PreparedV2 } from "./prepared.js";
import { v2StatementTranscript } from "./statement-transcript.js";

/** Time spent per phase of one proof, in milliseconds. */
export interface V2ProveTimings {
  readonly witnessMs: number;
  readonly proveMs: number;
}

function copyPublicInputs(pub: PublicInputs): PublicInputs {
  return {
    oldRoot: Uint32Array.from(pub.oldRoot),
    newRoot: Uint32Array.from(pub.newRoot),
    opKindTag: pub.opKindTag,
    assetId: pub.assetId,
    valueDigest: Uint32Array.from(pub.valueDigest),
  };
}

/**
 * Proves one request with a prepared v2 circuit. Invalid statements are proved as they are (the
 * verifier rejects them).
 * @param onTimings receives the time of the witness and the GKR phases.
 * @throws SyncError `WRONG_KIND`, or `WITNESS` wrapping the input builder's error.
 * @example
 *   const result = proveV2(prepareV2("membership"), request);
 */
export function proveV2(prepared: PreparedV2, request: OpRequest, onTimings?: (t: V2ProveTimings) => void): SyncResult {
  if (request?.operation?.kind !== prepared.kind) {
    throw new SyncError(
      "WRONG_KIND",
      `request of kind ${String(request?.operation?.kind)} given to a circuit prepared for kind ${prepared.kind}`,
    );
  }
  const t0 = performance.now();
  let input: Uint32Array;
  try {
    input = buildV2Inputs(prepared.compiled.layout, [request]);
  } catch (err) {
    if (err instanceof SsgkrError) throw new SyncError("WITNESS", `witness: ${err.message}`, { cause: err.code });
    throw err;
  }
  const layers = evaluateStructuredCopies(prepared.compiled.circuit, 0, padInput(prepared.compiled.circuit, input));
  const t1 = performance.now();
  const publicInputs = copyPublicInputs(request.publicInputs);
  const transcript = v2StatementTranscript(prepared.compiled, prepared.commitment, publicInputs, layers[0]!);
  // One operation: the structured oracle (the data-parallel prover at K = 1 gives the same proof
  // with more fixed cost per layer, docs/profile-v2.md §6).
  const { proof } = proveStructuredGkr(prepared.compiled.circuit, layers, transcript);
  onTimings?.({ witnessMs: t1 - t0, proveMs: performance.now() - t1 });
  return { publicInputs, proof };
}
