/**
 * A profile v3 prover with every step in the open, for forgery tests: the statement transcript
 * written again from the module comment of src/sync/v3/proof.ts (docs/profile-v3.md §5.2), not
 * with the library's function, so a verifier whose transcript drifts from it rejects; then the
 * WHIR commitment, the GKR over the copies, the split of the input claims and the opening, each
 * on inputs the test chooses. With the honest parts it reproduces `proveAggregateV3` and
 * `proveBlockV3` byte for byte (test/sync/v3/forgeries.test.ts checks this first).
 */
import type { Digest } from "../../src/hash/digest.js";
import { sponge } from "../../src/hash/digest.js";
import { evaluateStructuredCopies, proveCopiesGkr } from "../../src/gkr/structured/dp-prover.js";
import { encodeWhirCommitment, encodeWhirProof } from "../../src/pcs/codec.js";
import { DEFAULT_WHIR_SET, type WhirSetId } from "../../src/pcs/params.js";
import { type WhirAdversary, whirCommitOn, whirOpenOn } from "../../src/pcs/prover.js";
import type { WhirClaim } from "../../src/pcs/types.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { buildV3Inputs, committedHalves } from "../../src/smt/v3/input.js";
import { publicHalf, statementPreimage, type V3Statement } from "../../src/smt/v3/statement.js";
import { opKindTag } from "../../src/statement/types.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { encodeV3Message } from "../../src/codec/v3/message.js";
import { committedClaims, publicEvals, publicTable } from "../../src/sync/v3/input-claims.js";
import type { PreparedV3 } from "../../src/sync/v3/prepared.js";
import { v3Identity } from "../../src/sync/v3/proof.js";

/** k with 2^k ≥ n. */
export function copyBitsOf(n: number): number {
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

/** The statement digest of §5.2: the sponge of its pre-image, one statement at a time. */
export function statementDigestOf(prepared: PreparedV3, statement: V3Statement): Digest {
  return sponge(statementPreimage(prepared.compiled.layout, statement));
}

/** The transcript up to the WHIR commitment, written from the module comment of src/sync/v3/proof.ts. */
export function specTranscriptV3(
  prepared: PreparedV3,
  proofKind: 1 | 2,
  statements: readonly V3Statement[],
): DuplexChallenger {
  const n = statements.length;
  const k = copyBitsOf(n);
  const t = DuplexChallenger.withDomain("statesync-gkr/v3");
  const widths = prepared.shape.layerWidthBits;
  for (const x of [
    3,
    proofKind,
    opKindTag(prepared.kind),
    prepared.config.depth,
    prepared.config.leafMaxFields,
    n,
    2 ** k,
    prepared.shape.inputWidthBits + k,
    widths.length,
  ])
    t.observe(x);
  for (const w of widths) t.observe(w + k);
  for (const x of prepared.commitment) t.observe(x);
  for (const s of statements) for (const x of statementDigestOf(prepared, s)) t.observe(x);
  return t;
}

/** The statements padded with the prepared dummy to 2^k. */
export function paddedStatements(prepared: PreparedV3, statements: readonly V3Statement[]): V3Statement[] {
  const K = 2 ** copyBitsOf(statements.length);
  return [...statements, ...Array.from({ length: K - statements.length }, () => prepared.dummy.statement)];
}

/** The honest input vector of the requests (padded with the dummy) under the statements' public halves. */
export function honestInputV3(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  statements: readonly V3Statement[],
): Uint32Array {
  const K = 2 ** copyBitsOf(requests.length);
  const all = [...requests, ...Array.from({ length: K - requests.length }, () => prepared.dummy.request)];
  return buildV3Inputs(prepared.compiled.layout, all, paddedStatements(prepared, statements));
}

/** What the forger chooses; everything else it does honestly. */
export interface ForgeV3 {
  readonly prepared: PreparedV3;
  readonly proofKind: 1 | 2;
  /** The statements the verifier will hold: their digests go into the transcript, their checks into the message, their public halves into the claim split. */
  readonly statements: readonly V3Statement[];
  /** The K copies' input vector the GKR is run on (K·2^s values). */
  readonly input: Uint32Array;
  /** The polynomial committed (K·H values; default the committed halves of `input`). */
  readonly committed?: Uint32Array;
  /** Block only: the n − 1 intermediate roots. */
  readonly roots?: readonly Digest[];
  /** The statement checks written into the message (default those of `statements`). */
  readonly checks?: readonly (readonly [number, number])[];
  readonly set?: WhirSetId;
  /** Replaces the claims the opening proves (default the split of the GKR's input claim, as the verifier derives it). */
  readonly claims?: (derived: WhirClaim[]) => WhirClaim[];
  readonly whirAdversary?: WhirAdversary;
}

/** Runs the v3 prover's steps on the forger's choices and encodes the message. */
export function forgeV3(f: ForgeV3): Uint8Array {
  const { prepared, statements } = f;
  const layout = prepared.compiled.layout;
  const n = statements.length;
  const k = copyBitsOf(n);
  const t = specTranscriptV3(prepared, f.proofKind, statements);
  const state = whirCommitOn(t, f.committed ?? committedHalves(layout, f.input), { set: f.set ?? DEFAULT_WHIR_SET });
  const layers = evaluateStructuredCopies(prepared.compiled.circuit, k, f.input);
  const gkr = proveCopiesGkr(prepared.compiled.circuit, k, layers, t);
  const table = publicTable(
    layout,
    paddedStatements(prepared, statements).map((s) => publicHalf(layout, s)),
  );
  const claim = gkr.inputClaim;
  const [ux, uy] = publicEvals(layout, table, [claim.x, claim.y]);
  const split = committedClaims(k, claim, ux!, uy!);
  const derived = "claims" in split ? split.claims : [];
  const opening = encodeWhirProof(whirOpenOn(t, state, f.claims ? f.claims(derived) : derived, f.whirAdversary));
  const checks =
    f.checks ??
    statements.map((s) => {
      const d = statementDigestOf(prepared, s);
      return [d[0]!, d[1]!] as const;
    });
  return encodeV3Message({
    identity: v3Identity(prepared),
    proofKind: f.proofKind,
    statementChecks: checks,
    roots: f.roots ?? [],
    commitment: encodeWhirCommitment(state.commitment),
    proof: gkr.proof,
    opening,
  });
}
