/**
 * The one error catalogue: every code union of the package, with the module that owns it, its
 * own codes (runtime lists exported next to the unions) and the unions it includes. It is
 * documented code by code in docs/errors.md, and `test/arch/error-catalogue.test.ts` keeps the
 * two equal. Thrown errors are `SsgkrError` subclasses (errors.ts) whose `code` is of their
 * module's union; verdicts (`ok: false`) carry the union of their checks' codes.
 *
 * HTTP status: the registry API answers an error with its code's status, carried by the entries
 * of the unions it answers with statuses of their own (`http`), 500 for any other code.
 *
 * CLI exit status: an error's code is printed as `error CODE: message` on stderr with exit 2 (3
 * for `INTERNAL`, a bug); a verdict's as `REJECT CODE: reason` / `INVALID CODE: …` / `FALSE CODE:
 * …` with exit 1. This module imports only the `errors.ts` files, verifier code lists and the
 * library's union (error-codes.ts, which the CLI types its codes with), and nothing imports it
 * but the package entry and the tests.
 */
import { DECODE_ERROR_CODES, ENCODE_ERROR_CODES } from "./codec/errors.js";
import { V2_DECODE_ERROR_CODES, V2_ENCODE_ERROR_CODES } from "./codec/v2/errors.js";
import { V3_DECODE_ERROR_CODES, V3_ENCODE_ERROR_CODES } from "./codec/v3/errors.js";
import { CLI_ERROR_CODES, CLI_VERDICT_CODES, type CliErrorCode } from "./cli/errors.js";
import { CLAIM_ERROR_CODES } from "./counterparty/claim.js";
import { NAME_REJECT_CODES } from "./counterparty/verify.js";
import { FIELD_ERROR_CODES } from "./field/errors.js";
import { CIRCUIT_ERROR_CODES } from "./gkr/errors.js";
import { GKR_REJECT_CODES } from "./gkr/verifier.js";
import { HTTP_ERROR_CODES, HTTP_STATUSES } from "./http/errors.js";
import { PROVING_ERROR_CODES } from "./proving/errors.js";
import { MIRROR_ERROR_CODES } from "./mirror/errors.js";
import { KERNEL_ERROR_CODES } from "./kernels/errors.js";
import { DEMO_ERROR_CODES } from "./demo/errors.js";
import { REGISTRY_ERROR_CODES } from "./registry/errors.js";
import { RECORD_REJECT_CODES } from "./registry/verify-record.js";
import { BLOCK_REJECT_CODES } from "./registry/verify-block.js";
import { CONSISTENCY_REJECT_CODES, MONITOR_REJECT_CODES } from "./registry/consistency/verify-consistency.js";
import { LOAD_ERROR_CODES, VERIFY_POOL_CODES } from "./serve/load/errors.js";
import { BROKER_ERROR_CODES } from "./serve/nats/errors.js";
import { PROTOCOL_ERROR_CODES } from "./serve/protocol/errors.js";
import { SERVER_ERROR_CODES } from "./serve/server/errors.js";
import { COMPILE_ERROR_CODES, SMT_ERROR_CODES } from "./smt/errors.js";
import { STATEMENT_REJECT_CODES } from "./smt/semantics.js";
import { PCS_ERROR_CODES, PCS_REJECT_CODES } from "./pcs/errors.js";
import { SUMCHECK_ERROR_CODES } from "./sumcheck/errors.js";
import { SUMCHECK_REJECT_CODES } from "./sumcheck/verifier.js";
import { SYNC_ERROR_CODES } from "./statement/errors.js";
import { JOB_ERROR_CODES, PARALLEL_ERROR_CODES } from "./sync/parallel/errors.js";
import { REQUEST_ERROR_CODES } from "./sync/request.js";
import { V2_REJECT_CODES } from "./sync/v2/verify.js";
import { V3_REJECT_CODES } from "./sync/v3/verdict.js";
import { SYNC_REJECT_CODES } from "./sync/verdict.js";
import type { LibraryErrorCode } from "./error-codes.js";

/** A union included in another, its codes optionally prefixed (`GKR_`, `DECODE_`). */
export interface IncludedUnion {
  readonly union: string;
  readonly prefix?: string;
}

/** One code union of the catalogue. */
export interface CatalogueEntry {
  /** The source file that exports the union and its code list, relative to the package root. */
  readonly module: string;
  /** `error`: carried by a thrown `SsgkrError`; `verdict`: carried by a rejection (`ok: false`). */
  readonly kind: "error" | "verdict";
  /** The union's own codes. */
  readonly codes: readonly string[];
  /** Other unions whose codes it also carries. */
  readonly includes: readonly IncludedUnion[];
  /**
   * The HTTP status of each of its own codes, for the unions the registry API answers with
   * statuses of their own (`HTTP_STATUSES`, src/http/errors.ts); the API answers any other
   * error 500 with its code. Verdicts are no HTTP errors (`POST /v1/verify` answers them 200,
   * `ok: false`).
   */
  readonly http?: Readonly<Record<string, number>>;
}

const e = (
  module: string,
  codes: readonly string[],
  includes: readonly IncludedUnion[] = [],
  http?: Readonly<Record<string, number>>,
): CatalogueEntry => ({ module, kind: "error", codes, includes, ...(http ? { http } : {}) });
const v = (module: string, codes: readonly string[], includes: readonly IncludedUnion[] = []): CatalogueEntry => ({
  module,
  kind: "verdict",
  codes,
  includes,
});

/** Every code union, by the name of its TypeScript type. */
export const ERROR_CATALOGUE: Readonly<Record<string, CatalogueEntry>> = {
  FieldErrorCode: e("src/field/errors.ts", FIELD_ERROR_CODES),
  KernelErrorCode: e("src/kernels/errors.ts", KERNEL_ERROR_CODES),
  SumcheckErrorCode: e("src/sumcheck/errors.ts", SUMCHECK_ERROR_CODES),
  PcsErrorCode: e("src/pcs/errors.ts", PCS_ERROR_CODES),
  CircuitErrorCode: e("src/gkr/errors.ts", CIRCUIT_ERROR_CODES),
  SmtErrorCode: e("src/smt/errors.ts", SMT_ERROR_CODES),
  CompileErrorCode: e("src/smt/errors.ts", COMPILE_ERROR_CODES),
  DecodeErrorCode: e("src/codec/errors.ts", DECODE_ERROR_CODES),
  EncodeErrorCode: e("src/codec/errors.ts", ENCODE_ERROR_CODES),
  V2DecodeErrorCode: e("src/codec/v2/errors.ts", V2_DECODE_ERROR_CODES),
  V2EncodeErrorCode: e("src/codec/v2/errors.ts", V2_ENCODE_ERROR_CODES),
  V3DecodeErrorCode: e("src/codec/v3/errors.ts", V3_DECODE_ERROR_CODES),
  V3EncodeErrorCode: e("src/codec/v3/errors.ts", V3_ENCODE_ERROR_CODES),
  SyncErrorCode: e("src/statement/errors.ts", SYNC_ERROR_CODES),
  RequestErrorCode: e("src/sync/request.ts", REQUEST_ERROR_CODES, [], HTTP_STATUSES.RequestErrorCode),
  ParallelErrorCode: e("src/sync/parallel/errors.ts", PARALLEL_ERROR_CODES),
  JobErrorCode: e(
    "src/sync/parallel/errors.ts",
    JOB_ERROR_CODES,
    [
      "ParallelErrorCode",
      "SyncErrorCode",
      "SmtErrorCode",
      "CompileErrorCode",
      "CircuitErrorCode",
      "SumcheckErrorCode",
      "FieldErrorCode",
      "KernelErrorCode",
      "EncodeErrorCode",
    ].map((union) => ({ union })),
  ),
  RegistryErrorCode: e("src/registry/errors.ts", REGISTRY_ERROR_CODES, [], HTTP_STATUSES.RegistryErrorCode),
  DemoErrorCode: e("src/demo/errors.ts", DEMO_ERROR_CODES),
  ClaimErrorCode: e("src/counterparty/claim.ts", CLAIM_ERROR_CODES, [], HTTP_STATUSES.ClaimErrorCode),
  ProtocolErrorCode: e("src/serve/protocol/errors.ts", PROTOCOL_ERROR_CODES),
  ServerErrorCode: e("src/serve/server/errors.ts", SERVER_ERROR_CODES),
  LoadErrorCode: e("src/serve/load/errors.ts", LOAD_ERROR_CODES),
  VerifyPoolCode: e("src/serve/load/errors.ts", VERIFY_POOL_CODES, [
    { union: "LoadErrorCode" },
    { union: "ParallelErrorCode" },
  ]),
  BrokerErrorCode: e("src/serve/nats/errors.ts", BROKER_ERROR_CODES),
  HttpErrorCode: e("src/http/errors.ts", HTTP_ERROR_CODES, [], HTTP_STATUSES.HttpErrorCode),
  ProvingErrorCode: e("src/proving/errors.ts", PROVING_ERROR_CODES, [], HTTP_STATUSES.ProvingErrorCode),
  MirrorErrorCode: e("src/mirror/errors.ts", MIRROR_ERROR_CODES),
  CliErrorCode: e("src/cli/errors.ts", CLI_ERROR_CODES),
  SumcheckRejectCode: v("src/sumcheck/verifier.ts", SUMCHECK_REJECT_CODES),
  PcsRejectCode: v("src/pcs/errors.ts", PCS_REJECT_CODES),
  GkrRejectCode: v("src/gkr/verifier.ts", GKR_REJECT_CODES, [{ union: "SumcheckRejectCode" }]),
  StatementRejectCode: v("src/smt/semantics.ts", STATEMENT_REJECT_CODES),
  SyncCheckCode: v("src/sync/verdict.ts", SYNC_REJECT_CODES, [
    { union: "StatementRejectCode" },
    { union: "GkrRejectCode", prefix: "GKR_" },
  ]),
  SyncRejectCode: v("src/sync/verdict.ts", [], [{ union: "SyncCheckCode" }, { union: "DecodeErrorCode" }]),
  V2RejectCode: v("src/sync/v2/verify.ts", V2_REJECT_CODES, [
    { union: "SyncCheckCode" },
    { union: "V2DecodeErrorCode", prefix: "DECODE_" },
  ]),
  V3RejectCode: v("src/sync/v3/verdict.ts", V3_REJECT_CODES, [
    { union: "V3DecodeErrorCode", prefix: "DECODE_" },
    { union: "GkrRejectCode", prefix: "GKR_" },
    { union: "PcsRejectCode" },
  ]),
  RecordRejectCode: v(
    "src/registry/verify-record.ts",
    RECORD_REJECT_CODES,
    ["SyncRejectCode", "RequestErrorCode", "FieldErrorCode", "SmtErrorCode", "RegistryErrorCode"].map((union) => ({
      union,
    })),
  ),
  NameRejectCode: v("src/counterparty/verify.ts", NAME_REJECT_CODES, [
    { union: "ClaimErrorCode" },
    { union: "RecordRejectCode" },
  ]),
  BlockRejectCode: v(
    "src/registry/verify-block.ts",
    BLOCK_REJECT_CODES,
    ["RequestErrorCode", "FieldErrorCode", "SmtErrorCode", "V2RejectCode", "V3RejectCode"].map((union) => ({ union })),
  ),
  ConsistencyRejectCode: v("src/registry/consistency/verify-consistency.ts", CONSISTENCY_REJECT_CODES, [
    { union: "BlockRejectCode" },
  ]),
  MonitorRejectCode: v("src/registry/consistency/verify-consistency.ts", MONITOR_REJECT_CODES),
  CliVerdictCode: v("src/cli/errors.ts", CLI_VERDICT_CODES),
};

/** Every code of a union, its own and its included unions' (prefixed), sorted. */
export function codesOf(union: string): string[] {
  const entry = ERROR_CATALOGUE[union];
  if (!entry) throw new RangeError(`no code union ${union} in the catalogue`);
  const out = new Set<string>(entry.codes);
  for (const inc of entry.includes) for (const c of codesOf(inc.union)) out.add(`${inc.prefix ?? ""}${c}`);
  return [...out].sort();
}

/** The code of any error this package throws on purpose (`SsgkrError.code`): the library's and the CLI's. */
export type ErrorCode = LibraryErrorCode | CliErrorCode;
