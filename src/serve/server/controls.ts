/**
 * Startup controls of the proof server (compat-v1 §16.6), per kind on corpus fixtures
 * 0 … samples − 1:
 *
 * - the sequential batch proof (`proveBatchSequential`, this thread) and the parallel one
 *   (`SyncPool.proveBatch`, the serving pool) give identical bytes;
 * - `verifyEncoded` accepts the honest encoded proof against its request;
 * - it rejects: eval_x of layer 0 plus one (changed in the typed proof, then encoded),
 *   value_digest[0] plus one, old_root[0] plus one (both changed in the result's public inputs,
 *   then encoded), and the honest bytes with one byte appended;
 * - the SHA-256 of each honest proof is the control reference of (kind, fixture).
 */
import { add } from "../../field/koalabear.js";
import type { Ext } from "../../field/extension.js";
import { corpusRequest } from "../fixtures/corpus.js";
import { encodeSyncResult, verifyEncoded } from "../../sync/encoded.js";
import { proveBatchSequential } from "../../sync/batch.js";
import type { PreparedSync } from "../../sync/prepared.js";
import type { SyncResult } from "../../sync/prove.js";
import type { SyncPool } from "../../sync/parallel/pool.js";
import type { OpKindName } from "../../statement/types.js";
import { sha256Hex } from "../protocol/reply.js";
import { ServerError } from "./errors.js";

/** Control references: lowercase hex SHA-256 of the honest proof of fixture i, per kind. */
export type ControlReferences = Readonly<Record<OpKindName, readonly string[]>>;

export interface ControlsReport {
  readonly references: ControlReferences;
  /** Checks that held (4 rejections + equality + acceptance per fixture). */
  readonly checks: number;
  readonly ms: number;
}

function plusOne(e: Ext): Ext {
  return [add(e[0], 1), e[1], e[2], e[3]];
}

function appendByte(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

function bump(d: Uint32Array): Uint32Array {
  const out = Uint32Array.from(d);
  out[0] = add(out[0]!, 1);
  return out;
}

/**
 * Runs the controls for the three prepared kinds (indexed by kind tag).
 * @throws ServerError `CONTROLS_FAILED` naming the kind, fixture and control that failed.
 */
export async function runControls(
  prepared: readonly PreparedSync[],
  pool: SyncPool,
  samples: number,
): Promise<ControlsReport> {
  const t0 = performance.now();
  const references: Record<string, string[]> = {};
  let checks = 0;
  for (const p of prepared) {
    const kind = p.kind;
    const fail = (fixture: number, control: string, detail = ""): never => {
      throw new ServerError(
        "CONTROLS_FAILED",
        `control failed: ${kind} fixture ${fixture}: ${control}${detail ? ` (${detail})` : ""}`,
        { kind, fixture, control },
      );
    };
    const requests = Array.from({ length: samples }, (_, i) => corpusRequest(p.kind, i, p.config));
    const sequential = proveBatchSequential(p, requests);
    const parallel = await pool.proveBatch(p, requests);
    references[kind] = [];
    for (let i = 0; i < samples; i++) {
      const s = sequential[i]!;
      const q = parallel[i]!;
      if (!s.ok) fail(i, "sequential proof", s.error.message);
      if (!q.ok) fail(i, "parallel proof", q.error.message);
      const result = (s as { result: SyncResult }).result;
      const honest = encodeSyncResult(p, result);
      const par = (q as { bytes: Uint8Array }).bytes;
      if (honest.length !== par.length || !Buffer.from(honest).equals(Buffer.from(par)))
        fail(i, "sequential and parallel batch proofs are equal");
      checks++;
      const req = requests[i]!;
      const v = verifyEncoded(p, req, honest);
      if (!v.ok) fail(i, "honest encoded proof accepted", `${v.code}: ${v.reason}`);
      checks++;
      const layers = result.proof.layers;
      const tampered: [string, Uint8Array][] = [
        [
          "eval_x of layer 0 + 1 rejected",
          encodeSyncResult(p, {
            ...result,
            proof: { layers: [{ ...layers[0]!, evalX: plusOne(layers[0]!.evalX) }, ...layers.slice(1)] },
          }),
        ],
        [
          "value_digest[0] + 1 rejected",
          encodeSyncResult(p, {
            ...result,
            publicInputs: { ...result.publicInputs, valueDigest: bump(result.publicInputs.valueDigest) },
          }),
        ],
        [
          "old_root[0] + 1 rejected",
          encodeSyncResult(p, {
            ...result,
            publicInputs: { ...result.publicInputs, oldRoot: bump(result.publicInputs.oldRoot) },
          }),
        ],
        ["one appended byte rejected", appendByte(honest)],
      ];
      for (const [control, bytes] of tampered) {
        if (verifyEncoded(p, req, bytes).ok) fail(i, control);
        checks++;
      }
      references[kind]!.push(sha256Hex(honest));
    }
  }
  return { references: references as unknown as ControlReferences, checks, ms: performance.now() - t0 };
}
