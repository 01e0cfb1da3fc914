/**
 * The open-loop offer schedule of compat-v1 §16.5: which job is offered when, of which kind and
 * fixture, to which target. Pure functions of the options; the generator only reads the clock.
 *
 * Offer i (i = 0 … warmup + jobs − 1) is due round(i·10⁹ / rate) ns after the start, whatever the
 * replies: job_id = i, kind = mixture[i mod len], fixture = ⌊i / len⌋ mod corpus,
 * target = targets[i mod #targets], warmup = i < warmup-jobs, deadline = due + deadline-ms.
 */
import type { OpKindName } from "../../statement/types.js";
import { OP_KIND_NAMES } from "../../statement/types.js";
import { LoadError } from "./errors.js";

/** One `kind:weight` entry of a mixture. */
export interface MixtureEntry {
  readonly kind: OpKindName;
  /** 1..10000. */
  readonly weight: number;
}

/** The default mixture `membership:1,nonmembership:1,update:1`. */
export const DEFAULT_MIXTURE = "membership:1,nonmembership:1,update:1";

/** Largest weight of one mixture entry (§16.5). */
export const MAX_MIXTURE_WEIGHT = 10_000;

/** Highest offer rate in offers per second (§16.5: 0 < rate ≤ 10⁶). */
export const MAX_RATE = 1_000_000;

/**
 * Parses `kind:weight[,kind:weight…]`; kinds are `membership`, `nonmembership`, `update`
 * (a kind may appear more than once), weights integers in [1, 10000].
 * @throws LoadError `BAD_OPTION` (`details.option` = "--mixture").
 */
export function parseMixture(text: string): MixtureEntry[] {
  const bad = (why: string): LoadError =>
    new LoadError("BAD_OPTION", `--mixture ${JSON.stringify(text)}: ${why}`, { option: "--mixture" });
  if (text.trim() === "") throw bad("is empty (expected kind:weight[,kind:weight…])");
  return text.split(",").map((part) => {
    const m = /^\s*([a-z]+)\s*:\s*([0-9]+)\s*$/.exec(part);
    if (!m) throw bad(`entry ${JSON.stringify(part)} is not kind:weight`);
    const kind = m[1] as OpKindName;
    if (!OP_KIND_NAMES.includes(kind))
      throw bad(`unknown kind ${JSON.stringify(m[1])} (membership, nonmembership or update)`);
    const weight = Number(m[2]);
    if (!Number.isSafeInteger(weight) || weight < 1 || weight > MAX_MIXTURE_WEIGHT)
      throw bad(`weight of ${kind} must be an integer in [1, ${MAX_MIXTURE_WEIGHT}], got ${m[2]}`);
    return { kind, weight };
  });
}

/** Each entry expanded to `weight` consecutive copies of its kind, in order. */
export function expandMixture(entries: readonly MixtureEntry[]): OpKindName[] {
  const out: OpKindName[] = [];
  for (const e of entries) for (let w = 0; w < e.weight; w++) out.push(e.kind);
  return out;
}

/** What the schedule needs to place offers. */
export interface ScheduleSpec {
  /** Offers per second, 0 < rate ≤ 10⁶. */
  readonly rate: number;
  /** Timed offers (after the warmup offers). */
  readonly jobs: number;
  /** Warmup offers, offered first. */
  readonly warmupJobs: number;
  /** The expanded mixture (non-empty). */
  readonly mixture: readonly OpKindName[];
  /** Corpus size (fixtures 0 … corpus − 1). */
  readonly corpus: number;
  /** Number of targets (≥ 1). */
  readonly targets: number;
  /** Deadline after the scheduled time, ms. */
  readonly deadlineMs: number;
}

/** One planned offer. Offsets are ns after the run's start. */
export interface Offer {
  /** = i. */
  readonly jobId: number;
  readonly kind: OpKindName;
  readonly fixtureId: number;
  /** Index into the target list. */
  readonly target: number;
  readonly warmup: boolean;
  /** round(i·10⁹ / rate), ns. */
  readonly offsetNs: number;
  /** offsetNs + deadline-ms·10⁶, ns. */
  readonly deadlineOffsetNs: number;
}

/** Total number of offers: warmup + jobs. */
export function offerCount(spec: ScheduleSpec): number {
  return spec.warmupJobs + spec.jobs;
}

/**
 * Due offset of offer i in ns: round(i·10⁹ / rate), computed exactly for every i < 2^53 / 10⁹
 * by splitting i·10⁹ into whole seconds and a remainder (so large i does not lose ns).
 */
export function offerOffsetNs(i: number, rate: number): number {
  if (Number.isInteger(rate)) {
    // i·1e9 / rate = q·1e9 + r·1e9/rate with i = q·rate + r.
    const q = Math.floor(i / rate);
    const r = i - q * rate;
    return q * 1e9 + Math.round((r * 1e9) / rate);
  }
  return Math.round((i * 1e9) / rate);
}

/** Offer i of the schedule (§16.5). */
export function offerAt(spec: ScheduleSpec, i: number): Offer {
  const len = spec.mixture.length;
  const offsetNs = offerOffsetNs(i, spec.rate);
  return {
    jobId: i,
    kind: spec.mixture[i % len]!,
    fixtureId: Math.floor(i / len) % spec.corpus,
    target: i % spec.targets,
    warmup: i < spec.warmupJobs,
    offsetNs,
    deadlineOffsetNs: offsetNs + spec.deadlineMs * 1e6,
  };
}

/**
 * Timed job count for a duration: round(rate × duration-sec) (§16.5).
 * @throws LoadError `BAD_OPTION` if the result is not in [1, 2^32).
 */
export function jobsForDuration(rate: number, durationSec: number): number {
  const jobs = Math.round(rate * durationSec);
  if (!(jobs >= 1 && jobs < 2 ** 32)) {
    throw new LoadError(
      "BAD_OPTION",
      `--rate ${rate} × --duration ${durationSec} gives ${jobs} jobs; it must give at least 1 and fewer than 2^32`,
      { option: "--duration" },
    );
  }
  return jobs;
}
