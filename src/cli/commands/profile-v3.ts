/**
 * Profile v3 in the CLI (docs/profile-v3.md): `ssgkr prove --profile v3 --request R.json` or
 * `--requests R1.json,R2.json,…` (one aggregate, proof_kind 1, all of one kind and
 * configuration), and `ssgkr verify --request(s) … --proof A.bin`, which reads the profile from the
 * proof bytes and checks a v3 aggregate against the statements of the request files alone (their
 * roots, keys and leaves; updates with the old-leaf rule `any`): the files' siblings are not read.
 */
import { checkOperation } from "../../smt/semantics.js";
import { v3StatementOf } from "../../smt/v3/input.js";
import { prepareV3, proveAggregateV3, verifyAggregateV3 } from "../../sync/v3/index.js";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { writeFileOrExit } from "../io.js";
import { readRequests } from "./profile-v2.js";

/** The largest profile v3 proof file `ssgkr verify` reads. */
export const MAX_V3_PROOF_BYTES = 16 << 20;

/** True iff the bytes carry proof_encoding_version 3 (bytes 8..10 LE) after the magic. */
export function isV3Proof(bytes: Uint8Array): boolean {
  return bytes.length >= 17 && bytes[8] === 3 && bytes[9] === 0;
}

/** `prove --profile v3`: writes an inner-proof-v3 aggregate and prints one summary line. */
export function proveProfileV3(opts: { request?: string; requests?: string; out: string; unchecked: boolean }): void {
  const { files, requests } = readRequests(opts);
  const file = files[0]!;
  const config = { depth: file.depth, leafMaxFields: file.leafMaxFields };
  if (!opts.unchecked) {
    requests.forEach((r, i) => {
      const verdict = checkOperation(r, config);
      if (!verdict.valid)
        throw new CliExit(
          EXIT_VERDICT,
          `INVALID ${verdict.code}${requests.length > 1 ? ` (operation ${i})` : ""}: ${verdict.message}`,
          "stdout",
        );
    });
  }
  const prepared = prepareV3(file.kind, config);
  const started = performance.now();
  const bytes = proveAggregateV3(prepared, requests);
  const ms = performance.now() - started;
  writeFileOrExit(opts.out, bytes, "--out");
  process.stdout.write(
    `${file.kind} depth=${file.depth} profile=v3 operations=${requests.length} bytes=${bytes.length} prove_ms=${ms.toFixed(1)}\n`,
  );
}

/** `verify` of an inner-proof-v3 aggregate against the request files' statements. */
export function verifyProfileV3(opts: { request?: string; requests?: string }, bytes: Uint8Array): void {
  const { files, requests } = readRequests(opts);
  const file = files[0]!;
  const prepared = prepareV3(file.kind, { depth: file.depth, leafMaxFields: file.leafMaxFields });
  const verdict = verifyAggregateV3(
    prepared,
    requests.map((r) => v3StatementOf(r)),
    bytes,
  );
  if (!verdict.ok) {
    const op = verdict.operation !== undefined ? ` (operation ${verdict.operation})` : "";
    throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}${op}: ${verdict.reason}`, "stdout");
  }
  process.stdout.write(`ACCEPT profile=v3 operations=${requests.length}\n`);
}
