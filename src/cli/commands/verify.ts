import type { Command } from "commander";
import { SsgkrError } from "../../errors.js";
import { digestEquals } from "../../hash/digest.js";
import { prepare } from "../../sync/prepared.js";
import { verifyEncoded } from "../../sync/encoded.js";
import { CliExit, EXIT_USAGE, EXIT_VERDICT } from "../exit.js";
import { parseDigestOption, readFileOrExit, readRequest } from "../io.js";
import { isV2Proof, verifyProfileV2 } from "./profile-v2.js";

/**
 * `ssgkr verify --request R.json --proof P.bin [--expect-old-root D] [--expect-new-root D]`:
 * prints `ACCEPT` (exit 0) or `REJECT <code>: <reason>` (exit 1).
 */
export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description("verify proof bytes strictly against the original request (the profile is read from the proof)")
    .option("--request <file>", "request JSON the proof must be about")
    .option("--requests <files>", "comma-separated request files, in order, of an aggregate proof (profile v2)")
    .requiredOption("--proof <file>", "proof bytes (inner-proof-v1, or inner-proof-v2: the profile is read from the proof)")
    .option("--expect-old-root <d>", "8 comma-separated field elements (or the [a, b, …] form of `registry root`): the old root you trust")
    .option("--expect-new-root <d>", "8 comma-separated field elements (or the [a, b, …] form): the new root you trust")
    .action((opts: { request?: string; requests?: string; proof: string; expectOldRoot?: string; expectNewRoot?: string }) => {
      const expectOld = opts.expectOldRoot !== undefined ? parseDigestOption(opts.expectOldRoot, "--expect-old-root") : null;
      const expectNew = opts.expectNewRoot !== undefined ? parseDigestOption(opts.expectNewRoot, "--expect-new-root") : null;
      if (opts.requests !== undefined) {
        if (expectOld || expectNew) throw new CliExit(EXIT_USAGE, "error: --expect-old-root / --expect-new-root apply to compat-v1 proofs only");
        return verifyProfileV2(opts, new Uint8Array(readFileOrExit(opts.proof, "--proof")));
      }
      if (opts.request === undefined) throw new CliExit(EXIT_USAGE, "error: required option '--request <file>' not specified");
      const { file, request } = readRequest(opts.request);
      const bytes = new Uint8Array(readFileOrExit(opts.proof, "--proof"));
      if (isV2Proof(bytes)) {
        if (expectOld || expectNew) throw new CliExit(EXIT_USAGE, "error: --expect-old-root / --expect-new-root apply to compat-v1 proofs only");
        return verifyProfileV2(opts, bytes);
      }
      if (expectOld && !digestEquals(expectOld, file.oldRoot)) throw new CliExit(EXIT_VERDICT, "REJECT EXPECTED_OLD_ROOT: the request's old_root is not the root you expect", "stdout");
      if (expectNew && !digestEquals(expectNew, file.newRoot)) throw new CliExit(EXIT_VERDICT, "REJECT EXPECTED_NEW_ROOT: the request's new_root is not the root you expect", "stdout");
      let prepared;
      try {
        prepared = prepare(file.kind, { depth: file.depth, leafMaxFields: file.leafMaxFields });
      } catch (err) {
        if (err instanceof SsgkrError) throw new CliExit(EXIT_USAGE, `error ${err.code}: ${err.message}`);
        throw err;
      }
      const verdict = verifyEncoded(prepared, request, bytes);
      if (!verdict.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}: ${verdict.reason}`, "stdout");
      process.stdout.write("ACCEPT\n");
    });
}
