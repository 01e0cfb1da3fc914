/**
 * Profile v2 in the CLI (docs/profile-v2.md): `ssgkr prove --profile v2 --request R.json` (one
 * operation) or `--requests R1.json,R2.json,…` (one aggregate, all of one kind and depth), and
 * `ssgkr verify`, which reads the profile from the proof bytes.
 */
import { checkOperation } from "../../smt/semantics.js";
import type { OpRequest } from "../../smt/operation.js";
import type { SyncRequest } from "../../sync/request.js";
import { encodeV2, prepareV2, proveAggregate, proveV2, verifyAggregate, verifyEncodedV2 } from "../../sync/v2/index.js";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { readRequest, writeFileOrExit } from "../io.js";

export { PROFILES } from "./profiles.js";

/** True iff the bytes carry proof_encoding_version 2 (bytes 8..10 LE) after the magic. */
/** The largest profile v2 proof file `ssgkr verify` reads (an aggregate of 1,024 operations is far smaller). */
export const MAX_V2_PROOF_BYTES = 16 << 20;

export function isV2Proof(bytes: Uint8Array): boolean {
  return bytes.length >= 17 && bytes[8] === 2 && bytes[9] === 0;
}

/** Reads the request files of `--request` / `--requests`; they must share kind, depth and leaf bound. */
export function readRequests(opts: { request?: string; requests?: string }): {
  files: SyncRequest[];
  requests: OpRequest[];
  aggregate: boolean;
} {
  if (opts.request !== undefined && opts.requests !== undefined)
    throw new CliError("USAGE", "give either --request or --requests, not both");
  if (opts.request === undefined && opts.requests === undefined)
    throw new CliError(
      "MISSING_OPTION",
      "required option '--request <file>' not specified (or --requests <files> for an aggregate)",
    );
  const paths =
    opts.requests !== undefined
      ? opts.requests
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "")
      : [opts.request!];
  if (paths.length === 0) throw new CliError("USAGE", "--requests names no file");
  const read = paths.map((p) => readRequest(p));
  const first = read[0]!.file;
  read.forEach(({ file }, i) => {
    if (file.kind !== first.kind || file.depth !== first.depth || file.leafMaxFields !== first.leafMaxFields) {
      throw new CliError(
        "USAGE",
        `--requests: ${paths[i]} is ${file.kind} depth ${file.depth}, the first request is ${first.kind} depth ${first.depth} (an aggregate holds one kind and configuration)`,
      );
    }
  });
  return {
    files: read.map((r) => r.file),
    requests: read.map((r) => r.request),
    aggregate: opts.requests !== undefined,
  };
}

/** `prove --profile v2`: writes inner-proof-v2 bytes and prints one summary line. */
export function proveProfileV2(opts: { request?: string; requests?: string; out: string; unchecked: boolean }): void {
  const { files, requests, aggregate } = readRequests(opts);
  const file = files[0]!;
  const config = { depth: file.depth, leafMaxFields: file.leafMaxFields };
  if (!opts.unchecked) {
    requests.forEach((r, i) => {
      const verdict = checkOperation(r, config);
      if (!verdict.valid)
        throw new CliExit(
          EXIT_VERDICT,
          `INVALID ${verdict.code}${aggregate ? ` (operation ${i})` : ""}: ${verdict.message}`,
          "stdout",
        );
    });
  }
  const prepared = prepareV2(file.kind, config);
  const started = performance.now();
  const bytes = aggregate ? proveAggregate(prepared, requests) : encodeV2(prepared, proveV2(prepared, requests[0]!));
  const ms = performance.now() - started;
  writeFileOrExit(opts.out, bytes, "--out");
  process.stdout.write(
    `${file.kind} depth=${file.depth} profile=v2${aggregate ? ` operations=${requests.length}` : ""} bytes=${bytes.length} prove_ms=${ms.toFixed(1)}\n`,
  );
}

/** `verify` of inner-proof-v2 bytes (single or aggregate, from proof_kind at byte 12). */
export function verifyProfileV2(opts: { request?: string; requests?: string }, bytes: Uint8Array): void {
  const { files, requests } = readRequests(opts);
  const file = files[0]!;
  const prepared = prepareV2(file.kind, { depth: file.depth, leafMaxFields: file.leafMaxFields });
  const isAggregate = bytes[12] === 1;
  if (!isAggregate && requests.length !== 1)
    throw new CliExit(
      EXIT_VERDICT,
      `REJECT OPERATION_COUNT: the proof is for one operation, ${requests.length} requests were given`,
      "stdout",
    );
  const verdict = isAggregate
    ? verifyAggregate(prepared, requests, bytes)
    : verifyEncodedV2(prepared, requests[0]!, bytes);
  if (!verdict.ok) {
    const op = "operation" in verdict && verdict.operation !== undefined ? ` (operation ${verdict.operation})` : "";
    throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}${op}: ${verdict.reason}`, "stdout");
  }
  process.stdout.write(isAggregate ? `ACCEPT operations=${requests.length}\n` : "ACCEPT\n");
}
