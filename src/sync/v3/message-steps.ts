/**
 * What a v3 message and a v3-zk message share before their commitments (docs/profile-v3.md §5.2,
 * §11): the options and identity, the witness of the copies and the statement digests (prover),
 * the statement transcript (§5.2 steps 1–3 under the mode's domain tag), and the verifier's
 * checks of identity, count and statements.
 */
import { SsgkrError } from "../../errors.js";
import { DuplexChallenger } from "../../transcript/challenger.js";
import type { CircuitShape } from "../../gkr/shape.js";
import type { WhirVerifyOptions } from "../../pcs/api.js";
import type { WhirSetId } from "../../pcs/params.js";
import type { WhirRandomSource } from "../../pcs/random.js";
import type { WhirHidingLayout } from "../../pcs/types.js";
import type { OpRequest } from "../../smt/operation.js";
import { buildV3Inputs, v3StatementOf } from "../../smt/v3/input.js";
import {
  publicHalf,
  statementDigests,
  statementDigestsOfTable,
  writePublicHalf,
  type V3OldLeafRule,
  type V3Statement,
} from "../../smt/v3/statement.js";
import { widthBits } from "../../gkr/circuit.js";
import { SyncError } from "../../statement/errors.js";
import { opKindTag } from "../../statement/types.js";
import {
  V3_CIRCUIT_VERSION,
  V3_LAYOUT_ID,
  V3_LEAF_ENCODING_VERSION,
  V3_MAX_OPERATIONS,
  type V3CircuitIdentity,
} from "../../codec/v3/layout.js";
import type { V3Message } from "../../codec/v3/message.js";
import { identityEqual } from "../v2/encoded.js";
import { V3_PROFILE, V3_PROOF_DOMAIN_TAG } from "./domains.js";
import type { V3RejectCode, V3Verdict } from "./verdict.js";
import { publicTable, type PublicTable } from "./input-claims.js";
import type { PreparedV3 } from "./prepared.js";

/** Time per phase of one v3 proof, in milliseconds. */
export interface V3Timings {
  readonly operations: number;
  readonly copies: number;
  /** Input vectors (natively hashed paths) and statement digests. */
  readonly witnessMs: number;
  /** The WHIR commitment to the committed halves. */
  readonly commitMs: number;
  /** Layer values of every copy. */
  readonly evaluateMs: number;
  readonly gkrMs: number;
  /** The WHIR opening at the two input points. */
  readonly openMs: number;
  readonly encodeMs: number;
}

/** Options of the v3 provers. */
export interface V3ProveOptions {
  /** The WHIR parameter set (default `"cb100-r4-s3-l24-f6"`, with `zk` `"cb100-r4-s3-l24"`; docs/pcs.md §2.1). */
  readonly pcsSet?: WhirSetId;
  /** Update aggregates: the old-leaf rule of each operation (default `any`). */
  readonly rules?: readonly V3OldLeafRule[];
  readonly onTimings?: (t: V3Timings) => void;
  /**
   * The zero-knowledge mode v3-zk (docs/profile-v3.md §11): an inner-proof-v3zk message whose
   * bytes can be simulated from the statements alone. Default false.
   */
  readonly zk?: boolean;
  /**
   * v3-zk: where the random lanes, the masks and the hiding commitment's randomness come from
   * (default `cryptoRandomSource`); `whirSeededRandomSource(seed)` for reproducible tests only.
   */
  readonly random?: WhirRandomSource;
  /**
   * v3-zk: the hiding commitment's layout (docs/pcs.md §12.10). Default: "top-block" when f's top
   * values leave room for τ (every v3-zk statement of the registry's depth 48), else
   * "extra-variable"; "extra-variable" reproduces proofs made before the layout "top-block" existed.
   */
  readonly hidingLayout?: WhirHidingLayout;
}

/** Options of the v3 verifiers: the weakest WHIR regime accepted (default `"conjectured"`) and extra sets. */
export type V3VerifyOptions = WhirVerifyOptions;

/** k = ⌈log2 n⌉. */
export function copyBits(n: number): number {
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

/** The shape of K = 2^k copies (every width + k). */
export function copiesShape(prepared: PreparedV3, k: number): CircuitShape {
  return {
    layerWidthBits: prepared.shape.layerWidthBits.map((b) => b + k),
    inputWidthBits: prepared.shape.inputWidthBits + k,
  };
}

/** The identity a v3 proof of this prepared circuit carries. */
export function v3Identity(prepared: PreparedV3): V3CircuitIdentity {
  return {
    opKindTag: opKindTag(prepared.kind),
    depth: prepared.config.depth,
    circuitVersion: V3_CIRCUIT_VERSION,
    leafEncodingVersion: V3_LEAF_ENCODING_VERSION,
    leafMaxFields: prepared.config.leafMaxFields,
    layoutId: V3_LAYOUT_ID,
    commitment: prepared.commitment,
  };
}

/** §5.2 steps 1–3 on a fresh transcript under `tag` (v3's, or v3-zk's, §11.1). */
export function statementTranscript(
  prepared: PreparedV3,
  proofKind: number,
  n: number,
  k: number,
  digests: Uint32Array,
  tag: string = V3_PROOF_DOMAIN_TAG,
): DuplexChallenger {
  const shape = copiesShape(prepared, k);
  const t = DuplexChallenger.withDomain(tag);
  t.observeMany([
    V3_PROFILE,
    proofKind,
    opKindTag(prepared.kind),
    prepared.config.depth,
    prepared.config.leafMaxFields,
    n,
    2 ** k,
    shape.inputWidthBits,
    shape.layerWidthBits.length,
  ]);
  for (const b of shape.layerWidthBits) t.observe(b);
  t.observeDigest(prepared.commitment);
  t.observeAllUnchecked(digests);
  return t;
}

function failingOperation(err: SsgkrError): number {
  const i = err.details["operation"];
  return typeof i === "number" ? i : 0;
}

/**
 * Reports one proof's phases to `options.onTimings`: `marks` are the times (performance.now())
 * before the witness, the commitment, the layer values, the GKR, the opening and the encoding.
 */
export function reportTimings(options: V3ProveOptions, n: number, k: number, marks: readonly number[]): void {
  const [t0, t1, t2, t3, t4, t5] = marks as [number, number, number, number, number, number];
  options.onTimings?.({
    operations: n,
    copies: 2 ** k,
    witnessMs: t1 - t0,
    commitMs: t2 - t1,
    evaluateMs: t3 - t2,
    gkrMs: t4 - t3,
    openMs: t5 - t4,
    encodeMs: performance.now() - t5,
  });
}

/** The 2-element statement checks of the n operations (the first two lanes of each digest, §6). */
export function statementChecksOf(digests: Uint32Array, n: number): [number, number][] {
  return Array.from({ length: n }, (_, i) => [digests[8 * i]!, digests[8 * i + 1]!] as [number, number]);
}

/** What both provers build before the transcript: the padded input of the K copies and the statements' digests. */
export interface V3Witness {
  readonly n: number;
  readonly k: number;
  /** The K copies' input vectors back to back (2^(k + s) values). */
  readonly input: Uint32Array;
  /** The n public halves (without the dummies'). */
  readonly halves: readonly Uint32Array[];
  readonly digests: Uint32Array;
}

/**
 * Checks `requests` and builds their input vectors and statement digests (shared by the v3 and
 * v3-zk provers). Invalid witnesses are built as they are (the verifier rejects them).
 * @throws SyncError `BAD_AGGREGATE`, `WRONG_KIND{operation}`, `WITNESS{operation}`.
 */
export function buildV3Witness(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  options: V3ProveOptions,
): V3Witness {
  const n = Array.isArray(requests) ? requests.length : 0;
  if (n < 1 || n > V3_MAX_OPERATIONS)
    throw new SyncError(
      "BAD_AGGREGATE",
      `a v3 proof covers 1..${V3_MAX_OPERATIONS} operations, got ${Array.isArray(requests) ? n : typeof requests}`,
    );
  requests.forEach((r, i) => {
    if (r?.operation?.kind !== prepared.kind)
      throw new SyncError(
        "WRONG_KIND",
        `request ${i} is of kind ${String(r?.operation?.kind)}, the prepared circuit of kind ${prepared.kind}`,
        { operation: i },
      );
  });
  const rules = options.rules ?? [];
  const layout = prepared.compiled.layout;
  const k = copyBits(n);
  const statements = requests.map((r, i) => v3StatementOf(r, rules[i]));
  const allRequests = [...requests, ...Array.from({ length: 2 ** k - n }, () => prepared.dummy.request)];
  const allStatements = [...statements, ...Array.from({ length: 2 ** k - n }, () => prepared.dummy.statement)];
  let input: Uint32Array;
  try {
    input = buildV3Inputs(layout, allRequests, allStatements);
  } catch (err) {
    if (err instanceof SsgkrError) {
      const i = failingOperation(err);
      throw new SyncError("WITNESS", `witness of request ${i}: ${err.message}`, { operation: i, cause: err.code });
    }
    throw err;
  }
  const halves = statements.map((st) => publicHalf(layout, st));
  const digests = statementDigests(
    layout,
    statements.map((s) => s.key),
    halves,
  );
  return { n, k, input, halves, digests };
}

/** The public table of the K copies: the n public halves, then the dummy's. */
export function publicTableOf(prepared: PreparedV3, halves: readonly Uint32Array[], k: number) {
  return publicTable(prepared.compiled.layout, [
    ...halves,
    ...Array.from({ length: 2 ** k - halves.length }, () => prepared.dummy.publicHalf),
  ]);
}

/** A rejection verdict, naming the operation when one is to blame. */
export function reject(code: V3RejectCode, reason: string, operation?: number): V3Verdict {
  return operation === undefined ? { ok: false, code, reason } : { ok: false, code, reason, operation };
}

/** The statements' public table (their halves, then the dummy's) and digests once they match the proof's identity, count and checks. */
export interface CheckedStatements {
  readonly n: number;
  readonly k: number;
  readonly table: PublicTable;
  readonly digests: Uint32Array;
}

/**
 * The checks of a decoded message before its commitment (shared by v3 and v3-zk), in order:
 * identity, count, each statement's kind and form, its check.
 */
export function checkV3Statements(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  m: Pick<V3Message, "identity" | "statementChecks">,
): CheckedStatements | V3Verdict {
  if (!identityEqual(m.identity, v3Identity(prepared)))
    return reject("IDENTITY_MISMATCH", "the proof's circuit identity is not the prepared circuit's");
  const n = m.statementChecks.length;
  if (!Array.isArray(statements) || statements.length !== n)
    return reject(
      "OPERATION_COUNT",
      `the proof carries ${n} operations, ${Array.isArray(statements) ? statements.length : 0} statements were given`,
    );
  const layout = prepared.compiled.layout;
  const k = copyBits(n);
  // the halves straight into the public table (2^k rows of 2^p lanes; the dummy's after the n statements)
  const p = widthBits(layout.publicUsed);
  const values = new Uint32Array(2 ** (k + p));
  for (let i = 0; i < n; i++) {
    const st = statements[i]!;
    if (st?.kind !== prepared.kind)
      return reject(
        "WRONG_KIND",
        `statement ${i} is of kind ${String(st?.kind)}, the prepared circuit of kind ${prepared.kind}`,
        i,
      );
    try {
      writePublicHalf(layout, st, values, i * 2 ** p);
    } catch (e) {
      if (e instanceof SsgkrError) return reject("BAD_STATEMENT", `statement ${i}: ${e.message}`, i);
      throw e;
    }
  }
  for (let c = n; c < 2 ** k; c++) values.set(prepared.dummy.publicHalf, c * 2 ** p);
  const digests = statementDigestsOfTable(
    layout,
    statements.map((s) => s.key),
    values,
    2 ** p,
  );
  for (let i = 0; i < n; i++) {
    const [a, b] = m.statementChecks[i]!;
    if (digests[8 * i] !== a || digests[8 * i + 1] !== b)
      return reject(
        "PUBLIC_INPUTS_MISMATCH",
        `operation ${i}: the proof was made for another statement than the one given`,
        i,
      );
  }
  return { n, k, table: { copyBits: k, sizeBits: p, values }, digests };
}
