/**
 * Requests and proof files of the registry demo (demo.ts): compat-v1 requests built from the
 * registry's paths, proved with already prepared circuits, written as a request file plus
 * inner-proof-v1 bytes and checked back from those files exactly as `ssgkr verify` does.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashLeaf, type Leaf } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import type { Digest } from "../hash/digest.js";
import { OpKind } from "../sync/types.js";
import type { PreparedSync } from "../sync/prepared.js";
import type { PreparedAll } from "../sync/prepare-all.js";
import { provePrepared } from "../sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../sync/encoded.js";
import type { SyncVerdict } from "../sync/verify.js";
import { fromOpRequest, toOpRequest } from "../sync/request-convert.js";
import { parseRequestText, requestToJson } from "../sync/request.js";
import type { PlannedUpdate } from "./operations.js";

/** A read-only request (Membership or NonMembership) for `leaf` at `slot` under `root`. */
export function readOnlyRequest(kind: OpKind.Membership | OpKind.NonMembership, slot: number, leaf: Leaf, siblings: readonly Digest[], root: Digest, leafMaxFields: number): OpRequest {
  const key = BigInt(slot);
  const operation = kind === OpKind.Membership ? { kind, key, leaf } : { kind, key };
  return {
    operation: operation as OpRequest["operation"],
    witness: { leaf, siblings: siblings.slice() },
    publicInputs: { oldRoot: root, newRoot: root, opKindTag: kind, assetId: key, valueDigest: hashLeaf(leaf, leafMaxFields) },
  };
}

/** The Update request of a planned registry update (old leaf → new leaf on the shared path). */
export function updateRequest(p: PlannedUpdate, leafMaxFields: number): OpRequest {
  const key = BigInt(p.slot);
  return {
    operation: { kind: OpKind.Update, key, oldLeaf: p.oldLeaf, newLeaf: p.newLeaf },
    witness: { leaf: p.oldLeaf, siblings: p.siblings },
    publicInputs: { oldRoot: p.oldRoot, newRoot: p.newRoot, opKindTag: OpKind.Update, assetId: key, valueDigest: hashLeaf(p.newLeaf, leafMaxFields) },
  };
}

/** The prepared circuit of a kind. */
export function preparedFor(all: PreparedAll, kind: OpKind): PreparedSync {
  return kind === OpKind.Membership ? all.membership : kind === OpKind.NonMembership ? all.nonmembership : all.update;
}

/**
 * Proves a request as it is (a false statement is proved too; the verifier rejects it) and
 * encodes the proof. `ms`: proving plus encoding, in milliseconds.
 */
export function proveRequest(all: PreparedAll, request: OpRequest): { bytes: Uint8Array; ms: number } {
  const prepared = preparedFor(all, request.operation.kind);
  const t0 = performance.now();
  const bytes = encodeSyncResult(prepared, provePrepared(prepared, request));
  return { bytes, ms: performance.now() - t0 };
}

/** Where one step's files are. */
export interface StepFiles {
  readonly dir: string;
  readonly request: string;
  readonly proof: string;
}

/** Writes `dir/request.json` (request-file format) and `dir/proof.bin`. */
export function writeStepFiles(dir: string, request: OpRequest, bytes: Uint8Array, depth: number, leafMaxFields: number): StepFiles {
  mkdirSync(dir, { recursive: true });
  const files = { dir, request: join(dir, "request.json"), proof: join(dir, "proof.bin") };
  writeFileSync(files.request, JSON.stringify(requestToJson(fromOpRequest(request, depth, leafMaxFields)), null, 2) + "\n");
  writeFileSync(files.proof, bytes);
  return files;
}

/**
 * Reads a step's request file and proof bytes back and verifies them strictly
 * (`verifyEncoded`: decode, circuit identity, then every check of the composed verifier against
 * the request in the file). `ms`: the `verifyEncoded` call, in milliseconds.
 * A request file that cannot be read as a request is a rejection with code `REQUEST_SCHEMA`.
 */
export function verifyStepFiles(all: PreparedAll, files: StepFiles): { verdict: SyncVerdict; ms: number } {
  let request: OpRequest;
  try {
    request = toOpRequest(parseRequestText(readFileSync(files.request, "utf8")));
  } catch (err) {
    return { verdict: { ok: false, code: "REQUEST_SCHEMA", reason: (err as Error).message }, ms: 0 };
  }
  const bytes = new Uint8Array(readFileSync(files.proof));
  const prepared = preparedFor(all, request.operation.kind);
  const t0 = performance.now();
  const verdict = verifyEncoded(prepared, request, bytes);
  return { verdict, ms: performance.now() - t0 };
}
