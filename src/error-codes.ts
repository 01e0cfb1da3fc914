/**
 * `LibraryErrorCode`: the code of any error the library throws on purpose, that is every error
 * union of the catalogue (error-catalogue.ts) but the CLI's own. Types only, from the modules'
 * `errors.ts` files and code lists; nothing here imports the CLI, so the CLI can type its error
 * codes as a subset of the catalogue (`CliError`, src/cli/errors.ts) without a cycle, and the
 * catalogue's `ErrorCode` is this union with the CLI's codes.
 */
import type { DecodeErrorCode, EncodeErrorCode } from "./codec/errors.js";
import type { V2DecodeErrorCode, V2EncodeErrorCode } from "./codec/v2/errors.js";
import type { V3DecodeErrorCode, V3EncodeErrorCode } from "./codec/v3/errors.js";
import type { ClaimErrorCode } from "./counterparty/claim.js";
import type { FieldErrorCode } from "./field/errors.js";
import type { CircuitErrorCode } from "./gkr/errors.js";
import type { HttpErrorCode } from "./http/errors.js";
import type { ProvingErrorCode } from "./proving/errors.js";
import type { MirrorErrorCode } from "./mirror/errors.js";
import type { KernelErrorCode } from "./kernels/errors.js";
import type { DemoErrorCode } from "./demo/errors.js";
import type { RegistryErrorCode } from "./registry/errors.js";
import type { LoadErrorCode } from "./serve/load/errors.js";
import type { BrokerErrorCode } from "./serve/nats/errors.js";
import type { ProtocolErrorCode } from "./serve/protocol/errors.js";
import type { ServerErrorCode } from "./serve/server/errors.js";
import type { CompileErrorCode, SmtErrorCode } from "./smt/errors.js";
import type { PcsErrorCode } from "./pcs/errors.js";
import type { SumcheckErrorCode } from "./sumcheck/errors.js";
import type { SyncErrorCode } from "./statement/errors.js";
import type { JobErrorCode, ParallelErrorCode } from "./sync/parallel/errors.js";
import type { RequestErrorCode } from "./sync/request.js";

/** The code of any error the library (everything but the CLI) throws on purpose (`SsgkrError.code`). */
export type LibraryErrorCode =
  | FieldErrorCode
  | KernelErrorCode
  | SumcheckErrorCode
  | PcsErrorCode
  | CircuitErrorCode
  | SmtErrorCode
  | CompileErrorCode
  | DecodeErrorCode
  | EncodeErrorCode
  | V2DecodeErrorCode
  | V2EncodeErrorCode
  | V3DecodeErrorCode
  | V3EncodeErrorCode
  | SyncErrorCode
  | RequestErrorCode
  | ParallelErrorCode
  | JobErrorCode
  | RegistryErrorCode
  | DemoErrorCode
  | ClaimErrorCode
  | ProtocolErrorCode
  | ServerErrorCode
  | LoadErrorCode
  | BrokerErrorCode
  | HttpErrorCode
  | ProvingErrorCode
  | MirrorErrorCode;
