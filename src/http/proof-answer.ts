/**
 * The JSON answers about proofs that read and write routes share (docs/http.md): a proof body
 * (`statement`, `request`, `profile`, `zk` (true for a proof in v3-zk, profile v3's zero-knowledge mode), `proof` in base64, the root and batch it is about, the
 * signed checkpoint when the server signs, sizes and timings) and the name-form fields.
 */
import { bytesBase64 } from "../counterparty/body.js";
import { nameNotice } from "../counterparty/claim.js";
import type { NameProof } from "../counterparty/prove.js";

/** The body of a proof answer: the proof of `p`, about the root and batch `at`, with its checkpoint when there is one. */
export function proofBody(
  p: NameProof<{ readonly name: string }>,
  at: { root: string; batch: number | undefined },
  checkpoint: string | undefined,
): Record<string, unknown> {
  return {
    statement: p.statement,
    ...(p.request !== undefined ? { request: p.request } : {}),
    profile: p.profile,
    ...(p.zk ? { zk: true } : {}),
    proof: bytesBase64(p.proof),
    root: at.root,
    batch: at.batch,
    ...(checkpoint !== undefined ? { checkpoint } : {}),
    proof_bytes: p.proof.length,
    prove_ms: roundMs(p.proveMs),
    ...nameFormJson(p.statement.name),
  };
}

/** `nfc_name` and `name_notice` of an answer about a name that is not in Unicode NFC (nothing for an NFC name). */
export function nameFormJson(name: string): { nfc_name?: string; name_notice?: string } {
  const n = nameNotice(name);
  return n === undefined ? {} : { nfc_name: n.nfc, name_notice: n.notice };
}

/** Milliseconds as answers show them: two decimals. */
export const roundMs = (ms: number): number => Math.round(ms * 100) / 100;
