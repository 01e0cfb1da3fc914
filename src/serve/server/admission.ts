/**
 * Admission of one Job body, for every transport (compat-v1 §16.2): decode it (not a Job →
 * `bad_job`), check protocol 1 and a non-empty run_id (`protocol_mismatch`), then apply the input
 * rules (`input_error` with the reply's `input: …` text), else the request and its kind.
 */
import type { OpRequest } from "../../smt/operation.js";
import type { OpKind } from "../../statement/types.js";
import { INPUT_ERROR_PREFIX, requestFromInput } from "../protocol/input.js";
import { decodeJob, type Job } from "../protocol/job.js";
import { PROTOCOL_VERSION } from "../protocol/limits.js";

export type Admission =
  | { readonly status: "bad_job"; readonly detail: string }
  | { readonly status: "protocol_mismatch"; readonly job: Job; readonly detail: string }
  | { readonly status: "input_error"; readonly job: Job; readonly error: string }
  | { readonly status: "ok"; readonly job: Job; readonly request: OpRequest; readonly kind: OpKind };

/**
 * Admits a Job body for a server of tree depth `depth` speaking `protocol` (1, or 2 with profile
 * v2); never throws.
 */
export function admitJob(body: Uint8Array, depth: number, protocol: number = PROTOCOL_VERSION): Admission {
  let job: Job;
  try {
    job = decodeJob(body);
  } catch (err) {
    return { status: "bad_job", detail: (err as Error).message };
  }
  if (job.protocol !== protocol || job.run_id.length === 0) {
    return {
      status: "protocol_mismatch",
      job,
      detail: `protocol ${job.protocol}, run_id ${JSON.stringify(job.run_id)}`,
    };
  }
  const input = requestFromInput(job.input, depth);
  if (!input.ok) return { status: "input_error", job, error: INPUT_ERROR_PREFIX + input.reason };
  return { status: "ok", job, request: input.request, kind: input.kind };
}
