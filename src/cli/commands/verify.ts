import type { Command } from "commander";
import { formatRoot } from "../../registry/root.js";
import { digestEquals } from "../../hash/digest.js";
import { maxProofBytes } from "../../sync/limits.js";
import { opKindOf } from "../../sync/prepared.js";
import { verifyRequestProof } from "../../sync/verify-request.js";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { FileTooLarge, parseDigestOption, readFileHead, readFileOrExit, readRequest } from "../io.js";

/** The note after `ACCEPT` when no root was pinned. */
export const UNPINNED_NOTE =
  "roots not pinned: this proves the statement about the roots in the request; pass --expect-old-root to check them against a root you trust";

const HELP_AFTER = `
ACCEPT means the proof is valid for the request, the roots in the request included. Without
--expect-old-root that says nothing about trust: anyone can make a self-consistent tree and prove
statements about its root. The line then reads
  ACCEPT (${UNPINNED_NOTE})
With --expect-old-root (and --expect-new-root) the roots are first compared with the ones you
trust, and the line names them: ACCEPT (pinned old_root <64 hex characters>). See docs/security.md.

Exit codes: 0 ACCEPT; 1 REJECT <code>: <reason>; 2 unusable input (error <CODE>: ...).`;

const digestText = formatRoot;
import { isV2Proof, MAX_V2_PROOF_BYTES, verifyProfileV2 } from "./profile-v2.js";
import { isV3Proof, MAX_V3_PROOF_BYTES, verifyProfileV3 } from "./profile-v3.js";

/**
 * `ssgkr verify --request R.json --proof P.bin [--expect-old-root D] [--expect-new-root D]`:
 * prints `ACCEPT (…)` (exit 0) or `REJECT <code>: <reason>` (exit 1). The note after ACCEPT says
 * whether the roots were pinned (`UNPINNED_NOTE`) or names the pinned roots.
 *
 * Work is bounded before it starts: the request file is read only up to 1 MiB, the proof file
 * only if it is not larger than the largest valid proof for the request's configuration, and the
 * circuit is prepared only for a proof that declares the request's configuration.
 */
export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description("verify proof bytes strictly against the original request (the profile is read from the proof; pin the roots you trust with --expect-old-root)")
    .option("--request <file>", "request JSON the proof must be about")
    .option("--requests <files>", "comma-separated request files, in order, of an aggregate proof (profile v2 or v3)")
    .requiredOption("--proof <file>", "proof bytes (inner-proof-v1, -v2 or -v3: the profile is read from the proof)")
    .option("--expect-old-root <d>", "the old root you trust: 64 hex characters as `ssgkr registry root` prints it, or its 8 elements as a,b,… or [a, b, …]")
    .option("--expect-new-root <d>", "the new root you trust (64 hex characters, or a,b,… / [a, b, …])")
    .addHelpText("after", HELP_AFTER)
    .action((opts: { request?: string; requests?: string; proof: string; expectOldRoot?: string; expectNewRoot?: string }) => {
      const expectOld = opts.expectOldRoot !== undefined ? parseDigestOption(opts.expectOldRoot, "--expect-old-root") : null;
      const expectNew = opts.expectNewRoot !== undefined ? parseDigestOption(opts.expectNewRoot, "--expect-new-root") : null;
      if (opts.requests !== undefined) {
        if (expectOld || expectNew) throw new CliError("USAGE", "--expect-old-root / --expect-new-root apply to compat-v1 proofs only");
        if (isV3Proof(readFileHead(opts.proof, "--proof"))) return verifyProfileV3(opts, new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V3_PROOF_BYTES, "a profile v3 proof")));
        return verifyProfileV2(opts, new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V2_PROOF_BYTES, "a profile v2 proof")));
      }
      if (opts.request === undefined) throw new CliError("MISSING_OPTION", "required option '--request <file>' not specified");
      const { file, request } = readRequest(opts.request);
      const head = readFileHead(opts.proof, "--proof");
      if (isV3Proof(head)) {
        if (expectOld || expectNew) throw new CliError("USAGE", "--expect-old-root / --expect-new-root apply to compat-v1 proofs only");
        return verifyProfileV3(opts, new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V3_PROOF_BYTES, "a profile v3 proof")));
      }
      if (isV2Proof(head)) {
        if (expectOld || expectNew) throw new CliError("USAGE", "--expect-old-root / --expect-new-root apply to compat-v1 proofs only");
        return verifyProfileV2(opts, new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V2_PROOF_BYTES, "a profile v2 proof")));
      }
      if (expectOld && !digestEquals(expectOld, file.oldRoot)) throw new CliExit(EXIT_VERDICT, "REJECT EXPECTED_OLD_ROOT: the request's old_root is not the root you expect", "stdout");
      if (expectNew && !digestEquals(expectNew, file.newRoot)) throw new CliExit(EXIT_VERDICT, "REJECT EXPECTED_NEW_ROOT: the request's new_root is not the root you expect", "stdout");
      const config = { depth: file.depth, leafMaxFields: file.leafMaxFields };
      const limit = maxProofBytes(opKindOf(file.kind), config);
      let bytes: Uint8Array;
      try {
        bytes = readFileOrExit(opts.proof, "--proof", limit, `a valid ${file.kind} proof at depth ${file.depth}, leaf bound ${file.leafMaxFields}`);
      } catch (err) {
        if (err instanceof FileTooLarge) throw new CliExit(EXIT_VERDICT, `REJECT PROOF_TOO_LARGE: ${err.message}`, "stdout");
        throw err;
      }
      const verdict = verifyRequestProof(request, bytes, config);
      if (!verdict.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}: ${verdict.reason}`, "stdout");
      const pinned = [expectOld ? `old_root ${digestText(expectOld)}` : null, expectNew ? `new_root ${digestText(expectNew)}` : null].filter((x) => x !== null);
      process.stdout.write(pinned.length === 0 ? `ACCEPT (${UNPINNED_NOTE})\n` : `ACCEPT (pinned ${pinned.join(", ")})\n`);
    });
}
