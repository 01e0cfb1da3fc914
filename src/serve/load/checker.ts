/**
 * The frontend's acceptance checks of one reply (compat-v1 §16.5), in order: no server error;
 * binding (protocol, run_id, fixture_id, kind) equal to the offered job; SHA-256 of the proof
 * bytes equal to `canonical_sha256`; the control reference hash, if the (kind, fixture) has one;
 * strict encoded verification (`verify_encoded_sync_op`) against the original request, in the
 * frontend's verification pool. The first failing check names the rejection.
 */
import type { OpRequest } from "../../smt/operation.js";
import type { PreparedSync } from "../../sync/prepared.js";
import type { OpKindName } from "../../statement/types.js";
import { PROTOCOL_VERSION } from "../protocol/limits.js";
import { sha256Hex, type Reply } from "../protocol/reply.js";
import { controlKey, type ControlReferences } from "./controls.js";
import type { VerifyPool } from "./verify-pool.js";

/** Verdict of the checks: accepted, or the first failing check (`check: detail`). */
export type CheckVerdict =
  | { readonly ok: true; readonly verifyMs: number }
  | { readonly ok: false; readonly reason: string; readonly verifyMs: number | null };

/** What the reply must be bound to. */
export interface OfferedJob {
  readonly kind: OpKindName;
  readonly fixtureId: number;
  readonly request: OpRequest;
}

/**
 * The checks before strict verification (cheap, on the calling thread): null when they pass,
 * else the rejection reason. A reply carrying a server error is reported as `server_error`.
 */
export function precheckReply(
  reply: Reply,
  proof: Uint8Array,
  job: OfferedJob,
  runId: string,
  controls: ControlReferences,
): string | null {
  if (reply.error !== null) return `server_error: ${reply.error}`;
  if (reply.protocol !== PROTOCOL_VERSION) return `binding: protocol ${reply.protocol} ≠ ${PROTOCOL_VERSION}`;
  if (reply.run_id !== runId) return `binding: run_id ${JSON.stringify(reply.run_id)} ≠ ${JSON.stringify(runId)}`;
  if (reply.fixture_id !== job.fixtureId) return `binding: fixture_id ${reply.fixture_id} ≠ ${job.fixtureId}`;
  if (reply.kind !== job.kind) return `binding: kind ${JSON.stringify(reply.kind)} ≠ ${JSON.stringify(job.kind)}`;
  const hash = sha256Hex(proof);
  if (hash !== reply.canonical_sha256)
    return `sha256_mismatch: bytes hash to ${hash}, reply says ${JSON.stringify(reply.canonical_sha256)}`;
  const reference = controls.get(controlKey(job.kind, job.fixtureId));
  if (reference !== undefined && reference !== hash)
    return `control_hash_mismatch: ${hash} ≠ control reference ${reference}`;
  return null;
}

/** Runs every check of one reply; strict verification goes to `pool`. */
export async function checkReply(
  pool: VerifyPool,
  prepared: PreparedSync,
  reply: Reply,
  proof: Uint8Array,
  job: OfferedJob,
  runId: string,
  controls: ControlReferences,
): Promise<CheckVerdict> {
  const early = precheckReply(reply, proof, job, runId, controls);
  if (early !== null) return { ok: false, reason: early, verifyMs: null };
  const v = await pool.verify(prepared, job.request, proof);
  if (!v.ok) return { ok: false, reason: `verifier_error: ${v.code}: ${v.message}`, verifyMs: null };
  if (!v.accepted) return { ok: false, reason: `verify: ${v.code}: ${v.reason}`, verifyMs: v.ms };
  return { ok: true, verifyMs: v.ms };
}
