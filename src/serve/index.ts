/**
 * `statesync-gkr/serve`: the proof server, the open-loop load generator with its verifying
 * frontend, and serving protocol 1 (compat-v1 §16).
 *
 * @example
 * ```ts
 * import { ProofServer, runLoad, parseLoadOptions } from "statesync-gkr/serve";
 * const server = new ProofServer({ host: "127.0.0.1", port: 0, depth: 24 });
 * const ready = await server.start();           // { port, … }
 * ```
 */
export {
  jsonPath,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_V2,
  MAX_RUN_ID_BYTES,
  MAX_JOB_BYTES,
  MAX_REPLY_JSON_BYTES,
  MAX_PROOF_BYTES,
  FRAME_HEADER_BYTES,
  MAX_SERVED_DEPTH,
  KEY_BITS_CAP,
  MAX_PAYLOAD_FIELDS,
  IDENTITY_BYTES,
  DIGEST_ELEMENTS,
  U64_MAX,
  ProtocolError,
  PROTOCOL_ERROR_CODES,
  nowUnixNs,
  monotonicNs,
  parseJson,
  parseJsonExact,
  stringifyJson,
  encodeFrame,
  frameHeader,
  FrameReader,
  jobFromValue,
  decodeJob,
  decodeUtf8,
  jobToJson,
  encodeJobFrame,
  jobInputSchema,
  jobSchema,
  requestFromInput,
  inputFromRequest,
  INPUT_ERROR_PREFIX,
  INPUT_REASONS,
  baseReply,
  errorReply,
  sha256Hex,
  replyToJson,
  encodeReplyFrames,
  replyFromValue,
  decodeReply,
  REPLY_FIELDS,
  replySchema,
  REFUSALS,
  WITNESS_ERROR_PREFIX,
  JobStreamReader,
  ReplyStreamReader,
  servedAggregateBatchPart,
  servedAggregateFor,
  decodeServedAggregate,
  SERVED_AGGREGATE_MAGIC,
  SERVED_AGGREGATE_VERSION,
  SERVED_AGGREGATE_MAX_OPERATIONS,
  SERVED_AGGREGATE_OVERHEAD,
  type ProtocolErrorCode,
  type JsonValue,
  type WireLeaf,
  type JobInput,
  type Job,
  type InputReason,
  type InputOutcome,
  type Reply,
  type ReplyOrigin,
  type Refusal,
  type ReplyMessage,
  type ServedAggregate,
} from "./protocol/index.js";
export { ServerError } from "./server/errors.js";
export {
  defaultServerOptions,
  serverOptions,
  parseListen,
  type ReturnPath,
  type ServerOptions,
} from "./server/options.js";
export { ProofServer, type ServerStats, type ReadyInfo, type StopSummary } from "./server/server.js";
export { LoadError } from "./load/errors.js";
export { runLoad, type LoadHooks, type LoadResult } from "./load/load.js";
export {
  loadDefaults,
  parseTargets,
  parseLoadOptions,
  LOAD_OPTION_NAMES,
  type LoadOptionName,
  type LoadOptions,
  type Target,
} from "./load/options.js";
export { parseMixture, DEFAULT_MIXTURE, MAX_MIXTURE_WEIGHT, MAX_RATE, type MixtureEntry } from "./load/schedule.js";
export { WITHIN_MS, type LoadStatus, type LoadSummary } from "./load/summary.js";
export type { RequestRecord, Outcome } from "./load/ledger.js";
export { renderReport } from "./load/report.js";
import { installKernelBackend } from "../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
