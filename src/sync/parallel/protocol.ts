/**
 * Messages between the pool (owning thread) and its workers. One job per message; the worker
 * answers every `prove` / `verify` message with exactly one `done` message carrying the same
 * sequence number.
 */
import type { OpRequest } from "../../smt/operation.js";
import type { SyncVerdict } from "../verify.js";
import type { SharedPrepared } from "./shared-prepared.js";

/** A job as sent: the binary form (buffer transferred) or, for unusual values, a structured clone. */
export type WireJob = { readonly binary: Uint32Array } | { readonly clone: OpRequest };

/** Attach prepared circuit `id` (once per worker and circuit). */
export interface AttachMessage {
  readonly type: "attach";
  readonly id: number;
  readonly shared: SharedPrepared;
}

/**
 * Attach circuit `id` of the worker's extension (a pool started with an extension worker entry,
 * e.g. profile v2's aggregate pool): `body` is the extension's own description of the circuit.
 */
export interface AttachExtensionMessage {
  readonly type: "attach-ext";
  readonly id: number;
  readonly body: unknown;
}

/** A job of the worker's extension with its circuit `id`: `buffer` (if any) is transferred. */
export interface ExtensionMessage {
  readonly type: "ext";
  readonly seq: number;
  readonly id: number;
  readonly body: unknown;
  readonly buffer?: Uint32Array;
}

/** Forget prepared circuit `id`. */
export interface DetachMessage {
  readonly type: "detach";
  readonly id: number;
}

/** Witness, prove and encode one job with prepared circuit `id`. */
export interface ProveMessage {
  readonly type: "prove";
  readonly seq: number;
  readonly id: number;
  readonly job: WireJob;
}

/** verify_encoded_sync_op of `bytes` against one job with prepared circuit `id`. */
export interface VerifyMessage {
  readonly type: "verify";
  readonly seq: number;
  readonly id: number;
  readonly job: WireJob;
  readonly bytes: Uint8Array;
}

export type ToWorker =
  | AttachMessage
  | AttachExtensionMessage
  | DetachMessage
  | ProveMessage
  | VerifyMessage
  | ExtensionMessage;

/** Milliseconds spent by the worker on each step of one job (0 for steps a job does not have). */
export interface JobTimings {
  readonly decodeMs: number;
  readonly witnessMs: number;
  readonly proveMs: number;
  readonly encodeMs: number;
  readonly verifyMs: number;
}

/** An error as it crosses the thread boundary. */
export interface WireError {
  readonly name: string;
  /** The error's code (`JobErrorCode`: a code of the worker's error, or `UNEXPECTED`). */
  readonly code: string;
  readonly message: string;
  readonly details: Record<string, unknown>;
}

export type FromWorker =
  | {
      readonly type: "done";
      readonly seq: number;
      readonly ok: true;
      readonly bytes?: Uint8Array;
      readonly verdict?: SyncVerdict;
      readonly timings: JobTimings;
      readonly result?: unknown;
    }
  | {
      readonly type: "done";
      readonly seq: number;
      readonly ok: false;
      readonly error: WireError;
      readonly timings: JobTimings;
    };
