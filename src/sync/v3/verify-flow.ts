/**
 * The checks of a decoded v3 or v3-zk message after its statements (docs/profile-v3.md §5.3 and
 * §11.5), in the one order both modes share: the commitment's set against the accepted sets, its
 * shape against the K copies, the opening's set, the commitment read on the statements'
 * transcript, the GKR layers, the input claims on the public halves, the opening of the committed
 * claims. A mode (`V3VerifyMode`) names its commitment, its GKR verifier and its opening.
 */
import { CopiesWiring } from "../../gkr/structured/copies.js";
import type { InputClaim } from "../../gkr/proof.js";
import type { CircuitShape } from "../../gkr/shape.js";
import type { GkrRejection } from "../../gkr/verifier.js";
import type { WiringOracle } from "../../gkr/wiring/oracle.js";
import { acceptedWhirSets } from "../../pcs/api.js";
import { PcsError } from "../../pcs/errors.js";
import type { WhirSetId } from "../../pcs/params.js";
import type { WhirClaim, WhirVerdict } from "../../pcs/types.js";
import type { DuplexChallenger } from "../../transcript/challenger.js";
import type { V3Parts } from "../../codec/v3/message.js";
import { committedClaims, publicEvals } from "./input-claims.js";
import { checkV3Statements, copiesShape, reject, statementTranscript, type V3VerifyOptions } from "./message-steps.js";
import type { PreparedV3 } from "./prepared.js";
import type { V3Verdict } from "./verdict.js";
import type { V3Statement } from "../../smt/v3/statement.js";

/** What a GKR verifier of a mode returns: its input claim, and what its opening also proves. */
export type ModeGkrResult<G> = { readonly ok: true; readonly input: InputClaim; readonly more: G } | GkrRejection;

/** The prepared circuit and the copy bits k (K = 2^k copies) of the message being checked. */
export interface V3Copies {
  readonly prepared: PreparedV3;
  readonly k: number;
}

/** The parts in which v3 and v3-zk differ. */
export interface V3VerifyMode<
  Proof,
  C extends { readonly set: WhirSetId },
  O extends { readonly set: WhirSetId },
  R,
  G,
> {
  /** Decodes the commitment's bytes (checked by the message decoder). */
  readonly decodeCommitment: (bytes: Uint8Array) => C;
  /** Why the commitment is not to the vector of K = 2^k copies, or null. */
  readonly commitmentProblem: (commitment: C, at: V3Copies) => string | null;
  /** Decodes the opening's bytes (checked by the message decoder). */
  readonly decodeOpening: (bytes: Uint8Array) => O;
  /** The statements' transcript domain tag (undefined: v3's, `statementTranscript`'s default). */
  readonly domain: string | undefined;
  /** Absorbs the commitment. @throws PcsError for a commitment it cannot take. */
  readonly read: (transcript: DuplexChallenger, commitment: C) => R;
  readonly gkr: (
    shape: CircuitShape,
    wiring: WiringOracle,
    proof: Proof,
    transcript: DuplexChallenger,
  ) => ModeGkrResult<G>;
  /** Checks the opening of the committed input claims (and what the GKR result adds). */
  readonly open: (
    transcript: DuplexChallenger,
    read: R,
    claims: WhirClaim[],
    more: G,
    at: V3Copies,
    opening: O,
  ) => WhirVerdict;
  /** What a refused opening is called in the verdict's reason. */
  readonly openingName: string;
}

/**
 * Verifies a decoded message against the statements: `checkV3Statements`, then the mode's
 * commitment, GKR layers and opening in the shared order. Returns a verdict; a `PcsError` from
 * reading the commitment is `PCS_SHAPE`.
 */
export function verifyV3Flow<Proof, C extends { readonly set: WhirSetId }, O extends { readonly set: WhirSetId }, R, G>(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  m: V3Parts<Proof>,
  options: V3VerifyOptions,
  mode: V3VerifyMode<Proof, C, O, R, G>,
): V3Verdict {
  const checked = checkV3Statements(prepared, statements, m);
  if ("ok" in checked) return checked;
  const { n, k, table, digests } = checked;
  const commitment = mode.decodeCommitment(m.commitment);
  const accepted = acceptedWhirSets(options);
  if (!accepted.includes(commitment.set))
    return reject(
      "PCS_SET_NOT_ACCEPTED",
      `the commitment names set ${commitment.set}; this verifier accepts ${accepted.join(", ")}`,
    );
  const at: V3Copies = { prepared, k };
  const shapeProblem = mode.commitmentProblem(commitment, at);
  if (shapeProblem !== null) return reject("COMMITMENT_SHAPE", shapeProblem);
  const opening = mode.decodeOpening(m.opening);
  if (opening.set !== commitment.set)
    return reject("PCS_SET_NOT_ACCEPTED", `the opening names set ${opening.set}, the commitment ${commitment.set}`);
  const transcript = statementTranscript(prepared, m.proofKind, n, k, digests, mode.domain);
  let read: R;
  try {
    read = mode.read(transcript, commitment);
  } catch (e) {
    if (e instanceof PcsError) return reject("PCS_SHAPE", e.message);
    throw e;
  }
  const gkr = mode.gkr(
    copiesShape(prepared, k),
    new CopiesWiring(prepared.wiring, k, [...prepared.mulFree]),
    m.proof,
    transcript,
  );
  if (!gkr.ok) return reject(`GKR_${gkr.code}`, gkr.reason);
  const claim = gkr.input;
  const [pubX, pubY] = publicEvals(prepared.compiled.layout, table, [claim.x, claim.y]);
  const split = committedClaims(k, claim, pubX!, pubY!);
  if ("fails" in split)
    return reject(
      split.fails === "x" ? "INPUT_CLAIM_X" : "INPUT_CLAIM_Y",
      `the input claim at ${split.fails}* lies on the public half and differs from the statements' MLE there`,
    );
  const verdict = mode.open(transcript, read, split.claims, gkr.more, at, opening);
  return verdict.ok ? { ok: true } : reject(verdict.code, `${mode.openingName}: ${verdict.reason}`);
}
