/**
 * Options of `ssgkr load` (compat-v1 §16.5 defaults) and their validation. Every option arrives
 * as text (command line or `SSGR_*` environment variable) and is checked here, naming the option
 * and its rule on failure.
 */
import { availableParallelism } from "node:os";
import {
  DEFAULT_MIXTURE,
  expandMixture,
  jobsForDuration,
  MAX_RATE,
  parseMixture,
  type MixtureEntry,
} from "./schedule.js";
import type { OpKindName } from "../../statement/types.js";
import { LoadError } from "./errors.js";
import { MAX_RUN_ID_BYTES } from "../protocol/limits.js";

/** A target `host:port`. */
export interface Target {
  readonly host: string;
  /** 1..65535. */
  readonly port: number;
}

/** Validated options of one load run. Times in ms unless named otherwise. */
export interface LoadOptions {
  readonly targets: readonly Target[];
  /** Offers per second, 0 < rate ≤ 10⁶. */
  readonly rate: number;
  /** Timed offers (after warmup): --jobs, or round(rate × --duration), default 128. */
  readonly jobs: number;
  readonly mixture: readonly MixtureEntry[];
  /** The mixture expanded to one kind per slot. */
  readonly kinds: readonly OpKindName[];
  /** Fixtures 0 … corpus − 1; 0 < corpus < 2^min(depth, 24). */
  readonly corpus: number;
  /** Warmup offers (the first offers, excluded from timed statistics). */
  readonly warmupJobs: number;
  readonly deadlineMs: number;
  /** Verification worker threads. */
  readonly verifyWorkers: number;
  /** Replies waiting for or in verification before the frontend stops reading replies. */
  readonly verifyQueue: number;
  readonly depth: number;
  readonly runId: string;
  readonly repeat: number;
  /** Fixtures 0 … control-samples − 1 of each kind get a control reference hash (0 = no controls). */
  readonly controlSamples: number;
  readonly maxPending: number;
  /** Frames per target waiting to be written. */
  readonly senderQueue: number;
  readonly deadlinePollMs: number;
  /** How long to wait for outstanding replies after the last offer. */
  readonly drainMs: number;
  /** Connection timeout per target. */
  readonly connectTimeoutMs: number;
  /** Output directory (created; must not exist, unless `resume`). */
  readonly out: string;
  /**
   * The `--nats*` option texts when the run goes through a NATS JetStream broker instead of
   * `targets` (checked by the NATS transport), else null.
   */
  readonly broker: Readonly<Partial<Record<BrokerOptionName, string>>> | null;
  /** Continue the run recorded in `out` (same run id and schedule). */
  readonly resume: boolean;
  /**
   * `compat-v1` (default): jobs of serving protocol 1, one inner-proof-v1 per reply; `v2`: jobs
   * of protocol 2, served aggregates verified once per batch (docs/serving.md "Profile v2").
   */
  readonly profile: "compat-v1" | "v2";
}

/** The broker option names (the NATS transport checks their values). */
export const BROKER_OPTIONS = ["nats", "nats-creds", "nats-tls-ca", "nats-tls-cert", "nats-tls-key"] as const;
export type BrokerOptionName = (typeof BROKER_OPTIONS)[number];

/** The option names `ssgkr load` accepts (without the leading dashes). */
export const LOAD_OPTION_NAMES = [
  "targets",
  "rate",
  "duration",
  "jobs",
  "mixture",
  "corpus",
  "warmup",
  "deadline-ms",
  "verify-workers",
  "verify-queue",
  "depth",
  "run-id",
  "repeat",
  "control-samples",
  "max-pending",
  "sender-queue",
  "deadline-poll-ms",
  "drain-ms",
  "connect-timeout-ms",
  "out",
  "profile",
  ...BROKER_OPTIONS,
] as const;

/** Options without a value. */
export const LOAD_FLAG_NAMES = ["resume"] as const;

/** The name of a load option or flag (`ssgkr load --<name>`). */
export type LoadOptionName = (typeof LOAD_OPTION_NAMES)[number] | (typeof LOAD_FLAG_NAMES)[number];

/** Defaults of §16.5 (verify-workers: the available cores), as the text they would be given as. */
export function loadDefaults(): Readonly<Partial<Record<LoadOptionName, string>>> {
  return {
    targets: "127.0.0.1:9400",
    rate: "100",
    mixture: DEFAULT_MIXTURE,
    corpus: "768",
    warmup: "32",
    "deadline-ms": "1000",
    "verify-workers": String(availableParallelism()),
    "verify-queue": "256",
    depth: "24",
    "run-id": "pilot",
    repeat: "1",
    "control-samples": "2",
    "max-pending": "8192",
    "sender-queue": "1024",
    "deadline-poll-ms": "10",
    "drain-ms": "30000",
    "connect-timeout-ms": "5000",
    profile: "compat-v1",
  };
}

function bad(option: string, message: string): LoadError {
  return new LoadError("BAD_OPTION", `--${option} ${message}`, { option: `--${option}` });
}

function integer(option: string, text: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min || Number(text) > max) {
    throw bad(option, `must be an integer in [${min}, ${max}], got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function positiveNumber(option: string, text: string, max: number): number {
  const v = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text) ? Number(text) : NaN;
  if (!(v > 0 && v <= max)) throw bad(option, `must be a number in (0, ${max}], got ${JSON.stringify(text)}`);
  return v;
}

/**
 * Parses `host:port[,host:port…]` (IPv6 hosts in brackets, e.g. `[::1]:9400`).
 * @throws LoadError `BAD_OPTION`.
 */
export function parseTargets(text: string): Target[] {
  if (text.trim() === "") throw bad("targets", "is empty (expected HOST:PORT[,HOST:PORT…])");
  return text.split(",").map((part) => {
    const m = /^\s*(?:\[([0-9A-Fa-f:.]+)\]|([^\s:,[\]]+)):([0-9]{1,5})\s*$/.exec(part);
    if (!m) throw bad("targets", `entry ${JSON.stringify(part)} is not HOST:PORT`);
    const port = Number(m[3]);
    if (port < 1 || port > 65535) throw bad("targets", `port of ${JSON.stringify(part)} must be in [1, 65535]`);
    return { host: m[1] ?? m[2]!, port };
  });
}

/**
 * Validates the options of one run (`given` overrides the defaults). Exactly one of `jobs` and
 * `duration` may be given (neither: 128 jobs); `out` is required.
 * @throws LoadError `BAD_OPTION` naming the option and its rule.
 */
export function parseLoadOptions(given: Readonly<Partial<Record<LoadOptionName, string>>>): LoadOptions {
  const o = { ...loadDefaults(), ...given };
  const get = (name: LoadOptionName): string => o[name]!;
  if (o.out === undefined || o.out === "")
    throw bad("out", "is required (a new directory for the records, summary and report)");
  const rate = positiveNumber("rate", get("rate"), MAX_RATE);
  if (o.jobs !== undefined && o.duration !== undefined)
    throw bad("jobs", "and --duration exclude each other (give one)");
  const jobs =
    o.jobs !== undefined
      ? integer("jobs", o.jobs, 1, 2 ** 32 - 1)
      : o.duration !== undefined
        ? jobsForDuration(rate, positiveNumber("duration", o.duration, 10 * 365 * 86400))
        : 128;
  const depth = integer("depth", get("depth"), 1, 32);
  const corpusMax = 2 ** Math.min(depth, 24) - 1;
  const corpus = integer("corpus", get("corpus"), 1, corpusMax);
  const mixture = (() => {
    try {
      return parseMixture(get("mixture"));
    } catch (err) {
      throw err instanceof LoadError ? err : bad("mixture", String(err));
    }
  })();
  const brokerGiven = BROKER_OPTIONS.filter((n) => o[n] !== undefined);
  const broker = brokerGiven.length > 0 ? Object.fromEntries(brokerGiven.map((n) => [n, o[n]!])) : null;
  if (broker !== null && broker.nats === undefined) throw bad(brokerGiven[0]!, "needs --nats");
  if (broker !== null && given.targets !== undefined) throw bad("targets", "and --nats exclude each other (give one)");
  const resume = o.resume !== undefined;
  if (resume && broker === null)
    throw bad("resume", "needs --nats (results are read back from the broker's results stream)");
  // On a broker, results of a run id outlive the run: a new run gets a new id unless one is given.
  const runId =
    broker !== null && given["run-id"] === undefined
      ? `run-${new Date().toISOString().replace(/[-:.]/g, "").slice(0, 15)}-${Math.random().toString(36).slice(2, 8)}`
      : get("run-id");
  if (runId === "") throw bad("run-id", "must not be empty");
  if (Buffer.byteLength(runId, "utf8") > MAX_RUN_ID_BYTES)
    throw bad("run-id", `must be at most ${MAX_RUN_ID_BYTES} bytes (UTF-8), got ${Buffer.byteLength(runId, "utf8")}`);
  const profile = get("profile");
  if (profile !== "compat-v1" && profile !== "v2")
    throw bad("profile", `must be "compat-v1" or "v2", got ${JSON.stringify(profile)}`);
  return {
    targets: broker !== null ? [] : parseTargets(get("targets")),
    rate,
    jobs,
    mixture,
    kinds: expandMixture(mixture),
    corpus,
    warmupJobs: integer("warmup", get("warmup"), 0, 2 ** 32 - 1),
    deadlineMs: integer("deadline-ms", get("deadline-ms"), 1, 86_400_000),
    verifyWorkers: integer("verify-workers", get("verify-workers"), 1, 1024),
    verifyQueue: integer("verify-queue", get("verify-queue"), 1, 1 << 20),
    depth,
    runId,
    repeat: integer("repeat", get("repeat"), 0, 2 ** 32 - 1),
    controlSamples: integer("control-samples", get("control-samples"), 0, corpus),
    maxPending: integer("max-pending", get("max-pending"), 1, 1 << 24),
    senderQueue: integer("sender-queue", get("sender-queue"), 1, 1 << 24),
    deadlinePollMs: integer("deadline-poll-ms", get("deadline-poll-ms"), 1, 60_000),
    drainMs: integer("drain-ms", get("drain-ms"), 0, 86_400_000),
    connectTimeoutMs: integer("connect-timeout-ms", get("connect-timeout-ms"), 1, 600_000),
    out: o.out,
    broker,
    resume,
    profile,
  };
}
