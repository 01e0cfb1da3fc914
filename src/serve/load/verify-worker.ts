/**
 * Worker entry of the frontend's verification pool: attaches shared prepared circuits with the
 * derived wiring oracle (no compilation, no commitment), or prepares profile v2 circuits
 * (`attach-v2`), then answers one strict encoded verification (`verifyEncoded`) or one aggregate
 * verification (`verifyAggregate`, docs/profile-v2.md §10.4) per message.
 */
import { parentPort } from "node:worker_threads";
import { SsgkrError } from "../../errors.js";
import { DerivedRegularWiring } from "../../gkr/index.js";
import type { OpRequest } from "../../smt/operation.js";
import { verifyEncoded } from "../../sync/encoded.js";
import { attachPrepared, type SharedPrepared } from "../../sync/parallel/shared-prepared.js";
import type { PreparedSync } from "../../sync/prepared.js";
import type { SyncRejectCode } from "../../sync/verify.js";
import { LoadError, type VerifyPoolCode } from "./errors.js";
import { installKernelBackend } from "../../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
import type { OpKindName } from "../../statement/types.js";
import { verifyAggregate } from "../../sync/v2/aggregate.js";
import type { V2RejectCode } from "../../sync/v2/verify.js";
import { type PreparedV2, prepareV2 } from "../../sync/v2/prepared.js";

/** Messages to a verification worker. */
export type ToVerifier =
  | { readonly type: "attach"; readonly id: number; readonly shared: SharedPrepared }
  | { readonly type: "attach-v2"; readonly id: number; readonly kind: OpKindName; readonly depth: number }
  | {
      readonly type: "verify";
      readonly seq: number;
      readonly id: number;
      readonly request: OpRequest;
      readonly bytes: Uint8Array;
    }
  | {
      readonly type: "verify-aggregate";
      readonly seq: number;
      readonly id: number;
      readonly requests: readonly OpRequest[];
      readonly bytes: Uint8Array;
    };

/** Messages from a verification worker. */
export type FromVerifier =
  | { readonly type: "attached"; readonly id: number; readonly error: string | null; readonly ms: number }
  | {
      readonly type: "done";
      readonly seq: number;
      readonly ok: true;
      readonly accepted: boolean;
      readonly code: SyncRejectCode | V2RejectCode | null;
      readonly reason: string | null;
      readonly ms: number;
    }
  | {
      readonly type: "done";
      readonly seq: number;
      readonly ok: false;
      readonly code: VerifyPoolCode;
      readonly message: string;
    };

const port = parentPort;
if (port) {
  const circuits = new Map<number, PreparedSync>();
  const circuitsV2 = new Map<number, PreparedV2>();
  port.on("message", (msg: ToVerifier) => {
    if (msg.type === "attach" || msg.type === "attach-v2") {
      const t0 = performance.now();
      try {
        if (msg.type === "attach-v2") {
          if (!circuitsV2.has(msg.id)) circuitsV2.set(msg.id, prepareV2(msg.kind, { depth: msg.depth }));
        } else if (!circuits.has(msg.id))
          circuits.set(
            msg.id,
            attachPrepared(msg.shared, { wiring: (c) => new DerivedRegularWiring(c.circuit, c.tags) }),
          );
        port.postMessage({
          type: "attached",
          id: msg.id,
          error: null,
          ms: performance.now() - t0,
        } satisfies FromVerifier);
      } catch (err) {
        port.postMessage({
          type: "attached",
          id: msg.id,
          error: err instanceof Error ? err.message : String(err),
          ms: performance.now() - t0,
        } satisfies FromVerifier);
      }
      return;
    }
    const t0 = performance.now();
    try {
      let v: { ok: true } | { ok: false; code: SyncRejectCode | V2RejectCode; reason: string };
      if (msg.type === "verify-aggregate") {
        const p2 = circuitsV2.get(msg.id);
        if (!p2) throw new LoadError("NOT_ATTACHED", `circuit ${msg.id} is not attached to this worker`);
        v = verifyAggregate(p2, msg.requests, msg.bytes);
      } else {
        const p = circuits.get(msg.id);
        if (!p) throw new LoadError("NOT_ATTACHED", `circuit ${msg.id} is not attached to this worker`);
        v = verifyEncoded(p, msg.request, msg.bytes);
      }
      port.postMessage({
        type: "done",
        seq: msg.seq,
        ok: true,
        accepted: v.ok,
        code: v.ok ? null : v.code,
        reason: v.ok ? null : v.reason,
        ms: performance.now() - t0,
      } satisfies FromVerifier);
    } catch (err) {
      const code: VerifyPoolCode = err instanceof SsgkrError ? (err.code as VerifyPoolCode) : "UNEXPECTED";
      port.postMessage({
        type: "done",
        seq: msg.seq,
        ok: false,
        code,
        message: err instanceof Error ? err.message : String(err),
      } satisfies FromVerifier);
    }
  });
}
