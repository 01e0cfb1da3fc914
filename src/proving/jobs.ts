/**
 * The messages between the proving pool (pool.ts) and its workers (worker.ts): the worker's
 * start-up data and ready message, the jobs (a name's proof at a root, a part of a batch's block)
 * and their replies. Everything here crosses a thread by structured clone.
 */
import type { NameProof } from "../counterparty/prove.js";
import type { ReadStatementJson } from "../counterparty/claim.js";
import type { ProvedBlockPart } from "../registry/consistency/block-prover.js";

export type { ProvedBlockPart };

/** What a worker is started with (`workerData`). */
export interface PoolWorkerData {
  /** The registry directory, opened read-only by the worker. */
  readonly dir: string;
  /** Whether the worker prepares the read circuits before it says it is ready. */
  readonly prepareReads: boolean;
}

/** The first message of a worker: ready (registry opened, circuits prepared) or why not. */
export type PoolReady =
  | { readonly ready: true; readonly prepareMs: number }
  | { readonly ready: false; readonly code: string; readonly message: string };

/** The proof modes of a name's proof (docs/http.md: compat-v1, profile v3, v3-zk). */
export type ReadProfile = "v1" | "v3" | "v3-zk";

/** A name's membership or absence proof at a root of the registry's retention window. */
export interface ReadJob {
  readonly id: number;
  readonly kind: "read";
  readonly name: string;
  /** The root (8 field elements) the proof is about. */
  readonly root: readonly number[];
  readonly profile: ReadProfile;
}

/** A part of a committed batch's profile v3 block (the whole block for a batch of one part). */
export interface BlockJob {
  readonly id: number;
  readonly kind: "block";
  readonly batch: number;
  /** 0-based part. */
  readonly part: number;
}

export type PoolJob = ReadJob | BlockJob;

/** A worker's reply to a job. */
export type PoolReply =
  | { readonly id: number; readonly ok: true; readonly read: NameProof<ReadStatementJson> }
  | { readonly id: number; readonly ok: true; readonly block: ProvedBlockPart }
  | {
      readonly id: number;
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      readonly details: Record<string, unknown>;
    };
