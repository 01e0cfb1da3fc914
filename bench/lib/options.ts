/**
 * Declared, validated benchmark options. A benchmark lists every option it reads with its rule;
 * `parseOptions` checks the command line against that list before any work starts. An unknown
 * option, a stray argument or a value outside its rule ends the run with one line on stderr,
 * `bench <name>: …` naming the option and the rule, and exit code 2; `--help` lists the options.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** The rule of one option. */
export type OptionRule =
  | { readonly type: "flag" }
  | { readonly type: "int"; readonly min: number; readonly max: number }
  | { readonly type: "number"; readonly min: number; readonly max: number }
  | { readonly type: "ints"; readonly min: number; readonly max: number }
  | { readonly type: "choice"; readonly values: readonly string[] }
  | { readonly type: "choices"; readonly values: readonly string[] }
  | { readonly type: "text"; readonly pattern?: RegExp; readonly rule?: string };

export const flag: OptionRule = Object.freeze({ type: "flag" });
/** An integer in [min, max]. */
export const int = (min: number, max: number): OptionRule => ({ type: "int", min, max });
/** A finite number in [min, max]. */
export const num = (min: number, max: number): OptionRule => ({ type: "number", min, max });
/** A comma-separated list of integers, each in [min, max]. */
export const ints = (min: number, max: number): OptionRule => ({ type: "ints", min, max });
/** One of `values`. */
export const choice = (values: readonly string[]): OptionRule => ({ type: "choice", values });
/** A comma-separated list, each item one of `values`. */
export const choices = (values: readonly string[]): OptionRule => ({ type: "choices", values });
/** Any text, or text matching `pattern` (described by `rule`). */
export const text = (pattern?: RegExp, rule?: string): OptionRule =>
  pattern ? { type: "text", pattern, ...(rule ? { rule } : {}) } : { type: "text" };

/** Thrown by `checkOptions`: one line naming the option and its rule. */
export class BenchOptionError extends Error {}

function describe(rule: OptionRule): string {
  switch (rule.type) {
    case "flag":
      return "";
    case "int":
      return `an integer in ${rule.min}..${rule.max}`;
    case "number":
      return `a number in ${rule.min}..${rule.max}`;
    case "ints":
      return `comma-separated integers in ${rule.min}..${rule.max}`;
    case "choice":
      return `one of ${rule.values.join(", ")}`;
    case "choices":
      return `comma-separated items of ${rule.values.join(", ")}`;
    case "text":
      return rule.rule ?? "text";
  }
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return d[b.length]!;
}

function checkValue(name: string, rule: OptionRule, value: string): void {
  const bad = (why: string) =>
    new BenchOptionError(`--${name} ${JSON.stringify(value)}: ${why}; must be ${describe(rule)}`);
  const isInt = (s: string) => /^-?\d+$/.test(s.trim());
  switch (rule.type) {
    case "flag":
      return;
    case "int":
      if (!isInt(value)) throw bad("not an integer");
      if (Number(value) < rule.min || Number(value) > rule.max) throw bad(`${value} is out of range`);
      return;
    case "number": {
      const x = Number(value);
      if (value.trim() === "" || !Number.isFinite(x)) throw bad("not a number");
      if (x < rule.min || x > rule.max) throw bad(`${value} is out of range`);
      return;
    }
    case "ints":
      for (const item of value.split(",")) {
        if (!isInt(item)) throw bad(`${JSON.stringify(item)} is not an integer`);
        if (Number(item) < rule.min || Number(item) > rule.max) throw bad(`${item} is out of range`);
      }
      return;
    case "choice":
      if (!rule.values.includes(value)) throw bad("unknown value");
      return;
    case "choices":
      for (const item of value.split(","))
        if (!rule.values.includes(item)) throw bad(`unknown item ${JSON.stringify(item)}`);
      return;
    case "text":
      if (value === "" || (rule.pattern && !rule.pattern.test(value))) throw bad("not accepted");
      return;
  }
}

/**
 * The options of `argv` checked against `spec`: `--name value` for valued options, `--name`
 * for flags (`--name=value` works too). Returns name → value ("true" for a flag).
 * @throws BenchOptionError for an unknown option, a stray argument, a missing or invalid value.
 */
export function checkOptions(spec: Readonly<Record<string, OptionRule>>, argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const names = Object.keys(spec);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--") || a === "--")
      throw new BenchOptionError(`unexpected argument ${JSON.stringify(a)} (options are --name value)`);
    const eq = a.indexOf("=");
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const rule = spec[name];
    if (rule === undefined) {
      const near = names
        .map((n) => [n, distance(name, n)] as const)
        .filter(([, d]) => d <= 2)
        .sort((x, y) => x[1] - y[1])[0];
      throw new BenchOptionError(
        `unknown option '--${name}'${near ? ` (did you mean --${near[0]}?)` : ""}; known: ${names.map((n) => `--${n}`).join(", ") || "none"}`,
      );
    }
    if (out.has(name)) throw new BenchOptionError(`--${name} given twice`);
    let value: string;
    if (rule.type === "flag") {
      if (eq >= 0) throw new BenchOptionError(`--${name} is a flag and takes no value`);
      value = "true";
    } else if (eq >= 0) {
      value = a.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--"))
        throw new BenchOptionError(`--${name} needs a value: ${describe(rule)}`);
      value = next;
      i++;
    }
    checkValue(name, rule, value);
    out.set(name, value);
  }
  return out;
}

/** The usage lines of `spec`. */
export function optionsHelp(spec: Readonly<Record<string, OptionRule>>): string {
  return Object.entries(spec)
    .map(([n, r]) => `  --${n}${r.type === "flag" ? "" : ` <${describe(r)}>`}`)
    .join("\n");
}

/** How a benchmark reads its command line: the arguments, and the option values of its smoke mode. */
export interface ParseConfig {
  /** The arguments (default: `process.argv.slice(2)`). */
  readonly argv?: readonly string[];
  /**
   * Smoke mode: the values (as on the command line; `"true"` for a flag) that `--smoke` gives to
   * every option the command line leaves out: tiny sizes, one repetition, a run of a few seconds.
   */
  readonly smoke?: Readonly<Record<string, string>>;
}

/** The name of the smoke-mode flag that `parseOptions` adds to every benchmark. */
export const SMOKE = "smoke";

/**
 * Where a smoke run writes its results file: `BENCH_SMOKE_DIR` when set, else a fresh temporary
 * folder. Never `bench/results` nor `BENCH_RESULTS_DIR`, so a smoke run cannot overwrite real results.
 */
function smokeResultsDir(): string {
  return process.env["BENCH_SMOKE_DIR"] ?? mkdtempSync(join(tmpdir(), "ssgkr-bench-smoke-"));
}

/**
 * `argv` checked against `spec` plus `--smoke`; with `--smoke`, the smoke values fill the options
 * not given (each checked against its rule too).
 * @throws BenchOptionError as `checkOptions`, and for a smoke value outside its option's rule.
 */
export function resolveOptions(
  spec: Readonly<Record<string, OptionRule>>,
  argv: readonly string[],
  smoke: Readonly<Record<string, string>> = {},
): Map<string, string> {
  const full: Record<string, OptionRule> = { ...spec, [SMOKE]: flag };
  const out = checkOptions(full, argv);
  if (!out.has(SMOKE)) return out;
  for (const [name, value] of Object.entries(smoke)) {
    const rule = spec[name];
    if (rule === undefined) throw new BenchOptionError(`smoke value for unknown option '--${name}'`);
    checkValue(name, rule, value);
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}

/**
 * The benchmark's options from the command line, checked against `spec` before any work. On a
 * bad option: one line `bench <name>: …` on stderr and exit 2. `--help` prints the options.
 */
export function parseOptions(
  spec: Readonly<Record<string, OptionRule>>,
  config: ParseConfig = {},
): Map<string, string> {
  const argv = config.argv ?? process.argv.slice(2);
  const bench = basename(process.argv[1] ?? "bench").replace(/\.js$/, "");
  if (argv.includes("--help") || argv.includes("-h")) {
    const smoke = Object.entries(config.smoke ?? {})
      .map(([n, v]) => (v === "true" ? `--${n}` : `--${n} ${v}`))
      .join(" ");
    process.stdout.write(
      `npm run bench -- ${bench} [options]\n${optionsHelp({ ...spec, [SMOKE]: flag })}\n  (--smoke: a run of a few seconds${smoke ? ` with ${smoke}` : ""} unless given; results in a temporary folder)\n`,
    );
    process.exit(0);
  }
  try {
    const options = resolveOptions(spec, argv, config.smoke);
    if (options.has(SMOKE)) {
      // Child processes of this run inherit both, so they share the one folder.
      const dir = smokeResultsDir();
      process.env["BENCH_SMOKE_DIR"] = dir;
      process.env["BENCH_RESULTS_DIR"] = dir;
    }
    return options;
  } catch (err) {
    if (!(err instanceof BenchOptionError)) throw err;
    process.stderr.write(`bench ${bench}: ${err.message}\n`);
    process.exit(2);
  }
}
