/**
 * The implementation of `ssgkr verify`: the definitions (options, help) are in verify.ts, which
 * imports this file only when the command runs.
 */
import { formatRoot } from "../../registry/root.js";
import { digestEquals } from "../../hash/digest.js";
import { maxProofBytes } from "../../sync/limits.js";
import { opKindOf } from "../../sync/prepared.js";
import { verifyRequestProof } from "../../sync/verify-request.js";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { processDiskPreparedCache } from "../prepared-disk.js";
import { UNPINNED_NOTE } from "./verify-note.js";
import { FileTooLarge, parseDigestOption, readFileHead, readFileOrExit, readRequest } from "../io.js";
import { isV2Proof, MAX_V2_PROOF_BYTES, verifyProfileV2 } from "./profile-v2.js";
import { isV3Proof, MAX_V3_PROOF_BYTES, verifyProfileV3 } from "./profile-v3.js";

const digestText = formatRoot;

/** The action of `ssgkr verify`, with what commander parsed (the command's definition is in verify.ts). */
export async function runVerifyCommand(opts: {
  request?: string;
  requests?: string;
  proof: string;
  expectOldRoot?: string;
  expectNewRoot?: string;
}): Promise<void> {
  const expectOld =
    opts.expectOldRoot !== undefined ? parseDigestOption(opts.expectOldRoot, "--expect-old-root") : null;
  const expectNew =
    opts.expectNewRoot !== undefined ? parseDigestOption(opts.expectNewRoot, "--expect-new-root") : null;
  if (opts.requests !== undefined) {
    if (expectOld || expectNew)
      throw new CliError("USAGE", "--expect-old-root / --expect-new-root apply to compat-v1 proofs only");
    if (isV3Proof(readFileHead(opts.proof, "--proof")))
      return verifyProfileV3(
        opts,
        new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V3_PROOF_BYTES, "a profile v3 proof")),
      );
    return verifyProfileV2(
      opts,
      new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V2_PROOF_BYTES, "a profile v2 proof")),
    );
  }
  if (opts.request === undefined)
    throw new CliError("MISSING_OPTION", "required option '--request <file>' not specified");
  const { file, request } = readRequest(opts.request);
  const head = readFileHead(opts.proof, "--proof");
  if (isV3Proof(head)) {
    if (expectOld || expectNew)
      throw new CliError("USAGE", "--expect-old-root / --expect-new-root apply to compat-v1 proofs only");
    return verifyProfileV3(
      opts,
      new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V3_PROOF_BYTES, "a profile v3 proof")),
    );
  }
  if (isV2Proof(head)) {
    if (expectOld || expectNew)
      throw new CliError("USAGE", "--expect-old-root / --expect-new-root apply to compat-v1 proofs only");
    return verifyProfileV2(
      opts,
      new Uint8Array(readFileOrExit(opts.proof, "--proof", MAX_V2_PROOF_BYTES, "a profile v2 proof")),
    );
  }
  if (expectOld && !digestEquals(expectOld, file.oldRoot))
    throw new CliExit(
      EXIT_VERDICT,
      "REJECT EXPECTED_OLD_ROOT: the request's old_root is not the root you expect",
      "stdout",
    );
  if (expectNew && !digestEquals(expectNew, file.newRoot))
    throw new CliExit(
      EXIT_VERDICT,
      "REJECT EXPECTED_NEW_ROOT: the request's new_root is not the root you expect",
      "stdout",
    );
  const config = { depth: file.depth, leafMaxFields: file.leafMaxFields };
  const limit = maxProofBytes(opKindOf(file.kind), config);
  let bytes: Uint8Array;
  try {
    bytes = readFileOrExit(
      opts.proof,
      "--proof",
      limit,
      `a valid ${file.kind} proof at depth ${file.depth}, leaf bound ${file.leafMaxFields}`,
    );
  } catch (err) {
    if (err instanceof FileTooLarge)
      throw new CliExit(EXIT_VERDICT, `REJECT PROOF_TOO_LARGE: ${err.message}`, "stdout");
    throw err;
  }
  const verdict = verifyRequestProof(request, bytes, config, { cache: processDiskPreparedCache() });
  if (!verdict.ok) throw new CliExit(EXIT_VERDICT, `REJECT ${verdict.code}: ${verdict.reason}`, "stdout");
  const pinned = [
    expectOld ? `old_root ${digestText(expectOld)}` : null,
    expectNew ? `new_root ${digestText(expectNew)}` : null,
  ].filter((x) => x !== null);
  process.stdout.write(pinned.length === 0 ? `ACCEPT (${UNPINNED_NOTE})\n` : `ACCEPT (pinned ${pinned.join(", ")})\n`);
}
