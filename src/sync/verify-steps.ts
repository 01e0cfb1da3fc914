/**
 * The verification steps compat-v1 (src/sync/verify.ts) and profile v2 (src/sync/v2/verify.ts)
 * share: the statement preamble (compat-v1 §13.2 steps 0–7: kind, public inputs, native
 * statement checks), the input-vector step 8 with its `INPUT_VECTOR` code, the input-claim step 10
 * and the guard that turns malformed values into `MALFORMED_REQUEST`. Each profile supplies its
 * own input vector, transcript and GKR wiring.
 */
import { SsgkrError } from "../errors.js";
import type { Ext } from "../field/extension.js";
import { extEq } from "../field/extension.js";
import { digestEquals } from "../hash/digest.js";
import type { OpRequest } from "../smt/operation.js";
import { checkStatement } from "../smt/semantics.js";
import type { SyncConfig } from "../smt/config.js";
import type { SyncResult } from "./prove.js";
import type { OpKind, PublicInputs } from "../statement/types.js";
import type { SyncCheckCode, SyncVerdict } from "./verdict.js";

export type { SyncVerdict } from "./verdict.js";

/** A verdict of the shared steps: their codes are those of the composed checks. */
type StepVerdict = SyncVerdict<SyncCheckCode>;

export const ACCEPT: StepVerdict = Object.freeze({ ok: true });

export function rejection(code: SyncCheckCode, reason: string): StepVerdict {
  return { ok: false, code, reason };
}

/** All five public-input fields equal. */
export function publicInputsEqual(a: PublicInputs, b: PublicInputs): boolean {
  return (
    digestEquals(a.oldRoot, b.oldRoot) &&
    digestEquals(a.newRoot, b.newRoot) &&
    a.opKindTag === b.opKindTag &&
    a.assetId === b.assetId &&
    digestEquals(a.valueDigest, b.valueDigest)
  );
}

/** Steps 0–7 (kind, public inputs, native statement checks); null when all pass. */
export function statementRejection(
  prepared: { readonly kind: OpKind; readonly config: SyncConfig },
  request: OpRequest,
  result: SyncResult,
): StepVerdict | null {
  if (request?.operation?.kind !== prepared.kind) {
    return rejection(
      "WRONG_KIND",
      `the request is of kind ${String(request?.operation?.kind)}, the prepared circuit of kind ${prepared.kind}`,
    );
  }
  if (
    !result ||
    typeof result !== "object" ||
    !result.publicInputs ||
    !publicInputsEqual(result.publicInputs, request.publicInputs)
  ) {
    return rejection("PUBLIC_INPUTS_MISMATCH", "the proof's public inputs differ from the request's");
  }
  const statement = checkStatement(request, prepared.config);
  return statement.valid ? null : rejection(statement.code, statement.message);
}

/** Step 8: the input vector, or the `INPUT_VECTOR` rejection when the builder throws a typed error. */
export function inputVectorOrRejection(build: () => Uint32Array): Uint32Array | StepVerdict {
  try {
    return build();
  } catch (err) {
    if (err instanceof SsgkrError) return rejection("INPUT_VECTOR", `the input vector cannot be built: ${err.message}`);
    throw err;
  }
}

/** Step 10 from the two evaluations MLE(input)(x*), MLE(input)(y*) against the claim. */
export function inputClaimVerdict(
  atX: Ext,
  atY: Ext,
  claim: { readonly evalX: Ext; readonly evalY: Ext },
): StepVerdict {
  if (!extEq(atX, claim.evalX))
    return rejection("INPUT_CLAIM_X", "MLE(input)(x*) differs from the last layer's eval_x");
  if (!extEq(atY, claim.evalY))
    return rejection("INPUT_CLAIM_Y", "MLE(input)(y*) differs from the last layer's eval_y");
  return ACCEPT;
}

/** Runs a verification; typed errors, TypeError and RangeError from malformed values become `MALFORMED_REQUEST`. */
export function guardedVerdict<V>(run: () => V, malformed: (reason: string) => V): V {
  try {
    return run();
  } catch (err) {
    if (err instanceof SsgkrError || err instanceof TypeError || err instanceof RangeError) {
      return malformed(`malformed request or proof: ${(err as Error).message}`);
    }
    throw err;
  }
}
