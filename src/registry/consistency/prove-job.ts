/** The messages of the block prove worker (prove-worker.ts): a job and its reply. */
import type { ProvableBlock } from "../provable-block.js";

/** A job of the prove worker. */
export interface ProveJob {
  readonly id: number;
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly block: ProvableBlock;
  /** A zero-knowledge block (v3-zk). */
  readonly zk?: boolean;
}

/** The reply to a job. */
export type ProveReply =
  | { readonly id: number; readonly ok: true; readonly proof: Uint8Array }
  | { readonly id: number; readonly ok: false; readonly code: string; readonly message: string };
