/**
 * Browser stand-in for `node:crypto` (bundled in place of it by scripts/build-web.mjs). The page
 * checks proofs against the root the reader gives; it verifies no signed checkpoint, so the
 * Ed25519 functions the bundled checkpoint code names are never reached there.
 */
const unavailable = (what: string): never => {
  throw new TypeError(
    `${what}: signed checkpoints are verified in Node (verifyRecordProof, POST /v1/verify), not in the page`,
  );
};

/** Never called in the page (see the file comment). */
export function createPublicKey(): never {
  return unavailable("createPublicKey");
}

/** Never called in the page (see the file comment). */
export function verify(): never {
  return unavailable("verify");
}
