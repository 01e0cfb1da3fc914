/**
 * Forgery builders for the verifier-check tests: small prepared circuits (depth 2) with honest
 * proofs, and proofs rebuilt so that every check but a chosen one passes.
 */
import { EXT_ONE, type Ext, extAdd, extInverse, extMul, extSub } from "../../src/field/extension.js";
import type { Claim } from "../../src/gkr/claims.js";
import type { GkrProof, LayerProof } from "../../src/gkr/proof.js";
import { proveGkr } from "../../src/gkr/prover.js";
import { verifyGkr } from "../../src/gkr/verifier.js";
import { type LayerPredicates, type WiringOracle, combinedPredicates } from "../../src/gkr/wiring/oracle.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { buildWitness, provePrepared, type SyncResult } from "../../src/sync/prove.js";
import { statementTranscript } from "../../src/sync/statement-transcript.js";
import { OpKind } from "../../src/statement/types.js";

/** Depth of the small circuits (118 layers like every depth; ≈ 0.2 s to prepare). */
export const DEPTH = 2;
export const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;

const preparedCache = new Map<string, PreparedSync>();

/** A prepared circuit of `kind` at `depth` (cached per test process). */
export function prepared(kind: OpKind, depth = DEPTH, leafMaxFields = 31): PreparedSync {
  const key = `${kind}/${depth}/${leafMaxFields}`;
  let p = preparedCache.get(key);
  if (!p) {
    p = prepare(kind, { depth, leafMaxFields });
    preparedCache.set(key, p);
  }
  return p;
}

/** The golden fixture F(kind, DEPTH, 1) (a fresh copy each call). */
export function fixture(kind: OpKind, depth = DEPTH): OpRequest {
  return goldenFixture(kind, depth, 1n);
}

const honestCache = new Map<OpKind, SyncResult>();

/** The honest proof of `fixture(kind)` (a deep copy each call, so tests may edit it). */
export function honest(kind: OpKind): SyncResult {
  let r = honestCache.get(kind);
  if (!r) {
    r = provePrepared(prepared(kind), fixture(kind));
    honestCache.set(kind, r);
  }
  return cloneResult(r);
}

export function cloneResult(r: SyncResult): SyncResult {
  return {
    publicInputs: {
      ...r.publicInputs,
      oldRoot: r.publicInputs.oldRoot.slice(),
      newRoot: r.publicInputs.newRoot.slice(),
      valueDigest: r.publicInputs.valueDigest.slice(),
    },
    proof: cloneProof(r.proof),
  };
}

export function cloneProof(p: GkrProof): GkrProof {
  return {
    layers: p.layers.map((l) => ({
      rounds: l.rounds.map((g) => g.map((c) => [...c] as unknown as Ext)),
      evalX: [...l.evalX] as unknown as Ext,
      evalY: [...l.evalY] as unknown as Ext,
    })),
  };
}

/**
 * Proves `request` with the prover's transcript observing all-zero claimed outputs (what the
 * verifier observes), whatever the circuit really outputs. For an invalid statement this is the
 * honest GKR proof of the true (non-zero) outputs presented as a proof of zero outputs: only the
 * layer-0 round sum (g(0) + g(1) against the zero claim) tells them apart.
 */
export function proveClaimingZeroOutputs(prep: PreparedSync, request: OpRequest): SyncResult {
  const witness = buildWitness(prep, request);
  const zeros = new Uint32Array(witness.layers[0]!.length);
  const pub = request.publicInputs;
  const transcript = statementTranscript(prep.circuit, prep.kind, prep.config.depth, prep.commitment, pub, zeros);
  const { proof } = proveGkr(prep.circuit, witness.layers, transcript);
  return { publicInputs: { ...pub }, proof };
}

/** What the verifier sees at one layer's end check. */
export interface EndCheckView {
  readonly layer: number;
  readonly claims: readonly Claim[];
  readonly x: readonly Ext[];
  readonly y: readonly Ext[];
  readonly pred: LayerPredicates;
  /** β(y) = Π (1 − y_j). */
  readonly beta: Ext;
}

/** A wiring oracle that records every combined-predicate query of the verifier. */
function spyWiring(inner: WiringOracle, seen: EndCheckView[]): WiringOracle {
  return {
    evalPredicate: (l, k, z, x, y) => inner.evalPredicate(l, k, z, x, y),
    evalConst: (l, z) => inner.evalConst(l, z),
    evalConstCombined: (l, claims) => {
      let acc: Ext = [0, 0, 0, 0];
      if (inner.evalConstCombined) return inner.evalConstCombined(l, claims);
      for (const c of claims) acc = extAdd(acc, extMul(c.coeff, inner.evalConst(l, c.point)));
      return acc;
    },
    evalCombined: (layer, claims, x, y) => {
      const pred = combinedPredicates(inner, layer, claims, x, y);
      let beta: Ext = EXT_ONE;
      for (const c of y) beta = extMul(beta, extSub(EXT_ONE, c));
      seen.push({
        layer,
        claims: claims.map((c) => ({ point: [...c.point], coeff: c.coeff })),
        x: [...x],
        y: [...y],
        pred,
        beta,
      });
      return pred;
    },
  };
}

/** Runs the GKR verifier on `result` for `request` and returns its end-check views, layer by layer. */
export function endCheckViews(prep: PreparedSync, request: OpRequest, result: SyncResult): EndCheckView[] {
  const seen: EndCheckView[] = [];
  const zeros = new Uint32Array(2 ** prep.shape.layerWidthBits[0]!);
  const transcript = statementTranscript(
    prep.circuit,
    prep.kind,
    prep.config.depth,
    prep.commitment,
    request.publicInputs,
    zeros,
  );
  verifyGkr(prep.shape, spyWiring(prep.wiring, seen), zeros, result.proof, transcript);
  return seen;
}

/** The end-check views of `verifyGkr` over any shape, wiring oracle and transcript (e.g. profile v2's). */
export function endCheckViewsOf(
  shape: PreparedSync["shape"],
  wiring: WiringOracle,
  outputs: Uint32Array,
  proof: GkrProof,
  transcript: ReturnType<typeof statementTranscript>,
): EndCheckView[] {
  const seen: EndCheckView[] = [];
  verifyGkr(shape, spyWiring(wiring, seen), outputs, proof, transcript);
  return seen;
}

/** lin·V(x)·β + mul·V(x)·V(y) + pow3·V(x)³·β: the value the end check expects. */
export function endCheckValue(view: EndCheckView, evalX: Ext, evalY: Ext): Ext {
  const { lin, mul, pow3 } = view.pred;
  const ex3 = extMul(extMul(evalX, evalX), evalX);
  return extAdd(
    extAdd(extMul(extMul(lin, evalX), view.beta), extMul(extMul(mul, evalX), evalY)),
    extMul(extMul(pow3, ex3), view.beta),
  );
}

/** The eval_y that makes the end check hold with `evalX` for the final sumcheck value `value`. */
export function solveEvalY(view: EndCheckView, evalX: Ext, value: Ext): Ext {
  const { lin, mul, pow3 } = view.pred;
  const ex3 = extMul(extMul(evalX, evalX), evalX);
  const rest = extAdd(extMul(extMul(lin, evalX), view.beta), extMul(extMul(pow3, ex3), view.beta));
  return extMul(extSub(value, rest), extInverse(extMul(mul, evalX)));
}

/** Replaces the last layer's evaluations of `proof` (a copy). */
export function withLastEvals(proof: GkrProof, evalX: Ext, evalY: Ext): GkrProof {
  const p = cloneProof(proof);
  const last = p.layers.length - 1;
  (p.layers as LayerProof[])[last] = { ...p.layers[last]!, evalX, evalY };
  return p;
}
