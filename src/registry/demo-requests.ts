/**
 * Requests and proof files of the registry demo (demo.ts): compat-v1 requests built from the
 * registry's paths, proved with already prepared circuits, written as a request file plus
 * inner-proof-v1 bytes and checked back from those files exactly as `ssgkr verify` does.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OpRequest } from "../smt/operation.js";
import { OpKind } from "../sync/types.js";
import type { PreparedSync } from "../sync/prepared.js";
import type { PreparedAll } from "../sync/prepare-all.js";
import { provePrepared } from "../sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../sync/encoded.js";
import type { SyncRejectCode, SyncVerdict } from "../sync/verify.js";
import { fromOpRequest, toOpRequest } from "../sync/request-convert.js";
import { parseRequestText, requestToJson } from "../sync/request.js";
export { readOnlyRequest, updateRequest } from "./requests.js";

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
export function verifyStepFiles(all: PreparedAll, files: StepFiles): { verdict: SyncVerdict<SyncRejectCode | "REQUEST_SCHEMA">; ms: number } {
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
