/**
 * The grinding checks of docs/pcs.md §8, each by a real forgery: a prover that sends a witness
 * that does not grind and continues honestly on the transcript that absorbed it, so that only the
 * check of that witness can reject the proof.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  encodeWhirProof,
  whirCommit,
  whirOpenOn,
  whirSchedule,
  whirParameterSet,
  whirVerify,
  whirVerifyOn,
  whirReadCommitmentOn,
  DEFAULT_WHIR_SET,
  type WhirSetId,
} from "../../src/pcs/index.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { PCS_DOMAIN_TAG } from "../../src/transcript/domains.js";
import { randomEvaluations, twoClaims } from "./support.js";

test("a fold or query grinding witness that does not grind is PCS_PROOF_OF_WORK, though the rest of the proof is honest", () => {
  for (const set of ["cb100-r4", "cb100-r4-s3"] as const) forgeWitnesses(set);
});

function forgeWitnesses(set: WhirSetId): void {
  const m = 13;
  const evals = randomEvaluations(m, 2100);
  const claims = twoClaims(evals, m, 2101);
  const committed = whirCommit(evals, { set });
  const schedule = whirSchedule(whirParameterSet(set), m);
  const fold = schedule.rounds.findIndex((r) => r.foldPowBits > 0);
  const query = schedule.rounds.findIndex((r) => r.queryPowBits > 0);
  assert.ok(fold >= 0 && query >= 0);
  for (const [kind, at, s] of [
    ["fold", fold, 0],
    ["fold", fold, 4],
    ["query", query, 0],
  ] as const) {
    const proof = whirOpenOn(committed.transcript.clone(), committed.state, claims, {
      witness: (k, i, step, w, t) => {
        if (k !== kind || i !== at || step !== s) return w;
        const bits = kind === "fold" ? schedule.rounds[i]!.foldPowBits : schedule.rounds[i]!.queryPowBits;
        for (let x = 0; ; x++) if (!t.clone().checkWitness(bits, x)) return x;
      },
    });
    const v = whirVerify(committed.commitment, claims, encodeWhirProof(proof));
    assert.equal(!v.ok && v.code, "PCS_PROOF_OF_WORK", `${set}: ${kind} witness ${s} of iteration ${at}`);
  }
}

test("a proof without its query grinding witness, made on the transcript that absorbed none, is PCS_DECODE as bytes and PCS_SHAPE as a proof object", () => {
  const m = 13;
  const evals = randomEvaluations(m, 2200);
  const claims = twoClaims(evals, m, 2201);
  const committed = whirCommit(evals);
  const schedule = whirSchedule(whirParameterSet(DEFAULT_WHIR_SET), m);
  const query = schedule.rounds.findIndex((r) => r.queryPowBits > 0);
  assert.ok(query >= 0);
  const proof = whirOpenOn(committed.transcript.clone(), committed.state, claims, {
    omitQueryWitness: (i) => i === query,
  });
  assert.equal(proof.rounds[query]!.queryWitness, null);
  // The bytes cannot carry it (the decoder knows the schedule); the proof object reaches the verifier's own check.
  const bytes = whirVerify(committed.commitment, claims, encodeWhirProof(proof));
  assert.equal(!bytes.ok && bytes.code, "PCS_DECODE");
  const t = DuplexChallenger.withDomain(PCS_DOMAIN_TAG);
  const v = whirVerifyOn(t, whirReadCommitmentOn(t, committed.commitment), claims, proof);
  assert.equal(!v.ok && v.code, "PCS_SHAPE", `iteration ${query} without its witness`);
});
