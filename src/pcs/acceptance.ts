/**
 * The verifier's acceptance policy of the standalone commitments (docs/pcs.md §6): only named
 * sets, none weaker than the regime the verifier asks for; and the steps the plain and the hiding
 * standalone verifiers share (shape, set, proof bytes, transcript).
 */
import { DuplexChallenger } from "../transcript/challenger.js";
import { PcsError } from "./errors.js";
import { whirParameterSet, whirParameterSets, type WhirSetId } from "./params.js";
import type { WhirVerdict } from "./types.js";

/** The weakest soundness regime a verifier accepts: `"conjectured"` takes the 100-bit capacity and unique-decoding sets, `"provable"` only unique decoding. */
export type WhirAcceptance = "conjectured" | "provable";

/** Options of `whirVerify`. */
export interface WhirVerifyOptions {
  /** Default `"conjectured"` (the default set's regime). */
  readonly accept?: WhirAcceptance;
  /** Sets accepted besides the policy's, e.g. `["cb90-r4"]` to check the 90-bit comparison set. */
  readonly alsoAccept?: readonly WhirSetId[];
}

/**
 * The sets a verifier with these options accepts.
 * @throws PcsError `PCS_WEAKER_THAN_ACCEPTED` for an unknown `accept` value; `PCS_UNKNOWN_SET`.
 */
export function acceptedWhirSets(options: WhirVerifyOptions = {}): WhirSetId[] {
  const accept = options.accept ?? "conjectured";
  if (accept !== "conjectured" && accept !== "provable")
    throw new PcsError("PCS_WEAKER_THAN_ACCEPTED", `accept must be "conjectured" or "provable", got ${String(accept)}`);
  const out = whirParameterSets()
    .filter((s) => s.securityBits >= 100 && (accept === "conjectured" || s.regime === "unique-decoding"))
    .map((s) => s.id);
  for (const id of options.alsoAccept ?? []) if (!out.includes(whirParameterSet(id).id)) out.push(id);
  return out;
}

/** What a standalone verifier does in its own way: a commitment's and a proof's kind. */
export interface StandaloneFlow<C, Pf, R> {
  /** Why `commitment` is not a decoded commitment of this kind, or null. */
  readonly shapeProblem: (commitment: C) => string | null;
  /** The proof's byte format, named in the refusal of something that is not bytes. */
  readonly proofFormat: string;
  /** @throws PcsError for bytes that are not a proof of this kind. */
  readonly decode: (bytes: Uint8Array) => Pf;
  /** The transcript's domain tag. */
  readonly domain: Parameters<typeof DuplexChallenger.withDomain>[0];
  /** Absorbs the commitment. @throws PcsError for a commitment it cannot take. */
  readonly read: (transcript: DuplexChallenger, commitment: C) => R;
  readonly verify: (transcript: DuplexChallenger, read: R, proof: Pf) => WhirVerdict;
}

/**
 * A standalone opening checked in the order both verifiers share: the commitment's shape
 * (`PCS_SHAPE`), its set against the accepted ones (`PCS_SET_NOT_ACCEPTED`), the proof's bytes
 * (`PCS_DECODE`), the proof's set against the commitment's, the commitment read on a fresh
 * transcript under the flow's domain, then the flow's checks. Never throws for a bad proof.
 * @throws PcsError `PCS_WEAKER_THAN_ACCEPTED`, `PCS_UNKNOWN_SET` (bad options only).
 */
export function verifyStandalone<C extends { readonly set: WhirSetId }, Pf extends { readonly set: WhirSetId }, R>(
  commitment: C,
  proofBytes: Uint8Array,
  options: WhirVerifyOptions,
  flow: StandaloneFlow<C, Pf, R>,
): WhirVerdict {
  const accepted = acceptedWhirSets(options);
  const shape = flow.shapeProblem(commitment);
  if (shape !== null) return { ok: false, code: "PCS_SHAPE", reason: shape };
  if (!accepted.includes(commitment.set))
    return {
      ok: false,
      code: "PCS_SET_NOT_ACCEPTED",
      reason: `the commitment names set ${commitment.set}; this verifier accepts ${accepted.join(", ")}`,
    };
  if (!(proofBytes instanceof Uint8Array))
    return { ok: false, code: "PCS_DECODE", reason: `the proof must be a Uint8Array of ${flow.proofFormat} bytes` };
  let proof: Pf;
  try {
    proof = flow.decode(proofBytes);
  } catch (e) {
    if (e instanceof PcsError) return { ok: false, code: "PCS_DECODE", reason: e.message };
    throw e;
  }
  if (proof.set !== commitment.set)
    return {
      ok: false,
      code: "PCS_SET_NOT_ACCEPTED",
      reason: `the proof names set ${proof.set}, the commitment ${commitment.set}`,
    };
  const transcript = DuplexChallenger.withDomain(flow.domain);
  let read: R;
  try {
    read = flow.read(transcript, commitment);
  } catch (e) {
    if (e instanceof PcsError) return { ok: false, code: "PCS_SHAPE", reason: e.message };
    throw e;
  }
  return flow.verify(transcript, read, proof);
}
