/**
 * Prepared profile v3 circuits (docs/profile-v3.md §4): compile once, commit once (§4.3), build the
 * closed-form wiring once, and fix the dummy copy that pads a partial aggregate (§5.1).
 */
import type { Digest } from "../../hash/digest.js";
import { DerivedRegularWiring } from "../../gkr/wiring/derived.js";
import { type CircuitShape, shapeOf } from "../../gkr/shape.js";
import { mulFreeLayers } from "../../gkr/structured/copies.js";
import { StructuredWiring } from "../../gkr/structured/wiring.js";
import type { SyncConfig } from "../../smt/config.js";
import type { OpRequest } from "../../smt/operation.js";
import { dummyRequest } from "../../smt/v2/dummy.js";
import { type V3CompiledCircuit, compileV3 } from "../../smt/v3/compile.js";
import { v3StatementOf } from "../../smt/v3/input.js";
import { publicHalf, type V3Statement } from "../../smt/v3/statement.js";
import { type OpKind, type OpKindName, opKindOf } from "../../statement/types.js";
import { V3_CIRCUIT_VERSION } from "../../codec/v3/layout.js";
import { structuredCircuitCommitment } from "../v2/commitment.js";
import { V3_COMMITMENT_DOMAIN_TAG } from "./domains.js";

/** The copy that pads a partial aggregate: the v2 dummy request, its statement (update rule `any`) and public half. */
export interface V3Dummy {
  readonly request: OpRequest;
  readonly statement: V3Statement;
  readonly publicHalf: Uint32Array;
}

/** A circuit prepared for profile v3. */
export interface PreparedV3 {
  readonly profile: "v3";
  readonly kind: OpKind;
  readonly config: SyncConfig;
  readonly compiled: V3CompiledCircuit;
  readonly shape: CircuitShape;
  /** The circuit commitment (docs/profile-v3.md §4.3). */
  readonly commitment: Digest;
  readonly wiring: StructuredWiring;
  /** The layers without a Mul gate (the copies wiring skips their mul~). */
  readonly mulFree: readonly boolean[];
  readonly dummy: V3Dummy;
}

/**
 * prepare for profile v3.
 * @param kind operation kind (name or tag).
 * @param config depth 1..64, leaf bound 10..255 (defaults 24, 31).
 * @throws CompileError `BAD_KIND`, `UNSUPPORTED_CONFIG`; SyncError for an unknown kind name.
 * @example
 *   const prepared = prepareV3("update", { depth: 48 });
 */
export function prepareV3(kind: OpKind | OpKindName, config: Partial<SyncConfig> = {}): PreparedV3 {
  const compiled = compileV3(opKindOf(kind), config);
  const request = dummyRequest(compiled.kind, compiled.config);
  const statement = v3StatementOf(request);
  return Object.freeze({
    profile: "v3" as const,
    kind: compiled.kind,
    config: compiled.config,
    compiled,
    shape: shapeOf(compiled.circuit),
    commitment: structuredCircuitCommitment(V3_COMMITMENT_DOMAIN_TAG, V3_CIRCUIT_VERSION, compiled),
    wiring: new StructuredWiring(compiled.circuit, new DerivedRegularWiring(compiled.circuit), "closed-form"),
    mulFree: mulFreeLayers(compiled.circuit),
    dummy: Object.freeze({ request, statement, publicHalf: publicHalf(compiled.layout, statement) }),
  });
}
