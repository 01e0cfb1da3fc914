/**
 * The implementation of `ssgkr registry import`, defined in registry-import.ts, which imports this file only when the command runs.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import cliProgress from "cli-progress";
import { EXIT_OK } from "../exit.js";
import { CliError } from "../errors.js";
import { RegistryStore } from "../../registry/store/store.js";
import { importRecords, type ImportIssue, type ImportReport } from "../../registry/import/import.js";
import { fileSource, npmReposSource, NPM_REPOS_RECORDS } from "../../registry/import/dataset.js";
import { RegistryError } from "../../registry/errors.js";
import { formatRoot } from "../../registry/root.js";
import type { RecordSource } from "../../registry/import/sources/source.js";
import { NameStore } from "../../registry/store/name-store.js";
import { importNames, type NameImportReport } from "../../registry/import/name-import.js";
import { registryMapping } from "../../registry/store/open-any.js";
import { NAME_MAPPING_ID, SLOT_MAPPING_ID } from "../../registry/name-key.js";
import { retentionOptions, integerOption } from "./registry-args.js";
import { digestText, ms } from "./registry-print.js";
import { etaText, progressFraction, type ProgressGoal } from "./import-progress.js";

/** The progress bar on stderr: the share done of what the import will read, records, records/s and the time left. */
class ProgressLine {
  private static readonly STEPS = 1000;
  private readonly bar: cliProgress.SingleBar;
  private readonly started = performance.now();

  constructor(private readonly goal: ProgressGoal) {
    this.bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: `import |{bar}| {percentage}% | {records} records | {rate} records/s | ETA {left}{skipped}`,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(ProgressLine.STEPS, 0, { records: 0, rate: 0, left: "…", skipped: "" });
  }

  update(imported: number, bytesRead: number, malformed: number): void {
    const elapsed = performance.now() - this.started;
    const f = progressFraction(this.goal, { records: imported + malformed, bytesRead });
    this.bar.update(Math.floor(f * ProgressLine.STEPS), {
      records: imported,
      rate: Math.round(imported / Math.max(elapsed / 1000, 1e-3)),
      left: etaText(f, elapsed),
      skipped: malformed > 0 ? ` | ${malformed} malformed` : "",
    });
  }

  clear(): void {
    process.stderr.write("\r\x1b[K");
  }

  stop(): void {
    this.bar.stop();
  }
}

/**
 * The hint for an updates file given to `import` (prove-block's input: `{"op", "name", …}` a line),
 * read from its first non-blank line; undefined for anything else (records, other formats, unreadable).
 */
export function updatesFileHint(path: string): string | undefined {
  if (!/\.(ndjson|jsonl)$/i.test(path)) return undefined;
  const head = Buffer.alloc(64 * 1024);
  let n: number;
  try {
    const fd = openSync(path, "r");
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined; // the source reports what it cannot read
  }
  const lines = head.toString("utf8", 0, n).split("\n");
  const index = lines.findIndex((l) => l.trim() !== "");
  if (index < 0) return undefined;
  let first: unknown;
  try {
    first = JSON.parse(lines[index]!);
  } catch {
    return undefined;
  }
  if (first === null || typeof first !== "object" || Array.isArray(first)) return undefined;
  const op = (first as Record<string, unknown>)["op"];
  if (typeof op !== "string") return undefined;
  return `${path} holds updates (line ${index + 1}: {"op": ${JSON.stringify(op)}, …}), not records: \`registry import\` reads records ({"name", "value" | "fields"} a line); apply updates with \`ssgkr registry prove-block --db DIR --updates ${path} --out BLOCKDIR\` (or one at a time with \`ssgkr registry insert|replace|delete|restore\`)`;
}

/** The entries of a directory, or null when it does not exist. */
function entriesOf(dir: string): ReadonlySet<string> | null {
  return existsSync(dir) ? new Set(readdirSync(dir)) : null;
}

/** Removes what a registry's creation added: the directory when it did not exist (`before` null), else the entries it did not hold. */
function removeCreated(dir: string, before: ReadonlySet<string> | null): void {
  if (before === null) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  for (const name of readdirSync(dir)) if (!before.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
}

/** The action of `ssgkr registry import`, with what commander parsed (defined in registry-import.ts). */
export async function runImportCommand(
  setExit: (code: number) => void,
  opts: {
    db: string;
    source?: string;
    limit?: string;
    file?: string;
    onError: "fail" | "skip";
    batchSize?: string;
    threads?: string;
    mapping?: string;
    depth?: string;
    leafMaxFields?: string;
    keepCommits?: string;
    keepDays?: string;
    progress: boolean;
    json?: boolean;
  },
): Promise<void> {
  if ((opts.source === undefined) === (opts.file === undefined))
    throw new CliError("USAGE", "registry import: give exactly one of --source npm-repos and --file F");
  if (opts.source !== undefined && opts.source !== "npm-repos")
    throw new CliError(
      "BAD_OPTION",
      `registry import: unknown --source ${JSON.stringify(opts.source)} (known: npm-repos)`,
    );
  if (opts.file !== undefined) {
    const hint = updatesFileHint(opts.file);
    if (hint !== undefined) throw new RegistryError("BAD_SOURCE", hint, { path: opts.file });
  }
  const limit =
    opts.limit === undefined
      ? undefined
      : opts.limit === "all"
        ? ("all" as const)
        : integerOption("--limit", opts.limit, 0);
  const makeSource: () => RecordSource =
    opts.source !== undefined
      ? () => npmReposSource(limit ?? 100_000)
      : () => fileSource(opts.file!, limit === undefined || limit === "all" ? Infinity : limit);
  const probe = makeSource();
  const existing = registryMapping(opts.db);
  const wantedMapping =
    opts.mapping === undefined ? undefined : opts.mapping === NAME_MAPPING_ID ? NAME_MAPPING_ID : SLOT_MAPPING_ID;
  if (existing !== undefined && wantedMapping !== undefined && existing !== wantedMapping) {
    throw new RegistryError(
      "CONFIG_MISMATCH",
      `registry at ${opts.db} has mapping ${existing}; asked for ${wantedMapping}`,
      { stored: existing, wanted: wantedMapping },
    );
  }
  const cfg = {
    ...(opts.depth !== undefined ? { depth: integerOption("--depth", opts.depth, 0) } : {}),
    ...(opts.leafMaxFields !== undefined
      ? { leafMaxFields: integerOption("--leaf-max-fields", opts.leafMaxFields, 0) }
      : {}),
  };
  const named = (existing ?? wantedMapping ?? NAME_MAPPING_ID) === NAME_MAPPING_ID;
  const retention = retentionOptions(opts);
  if (!named && retention !== undefined)
    throw new CliError(
      "BAD_OPTION",
      "registry import: --keep-commits and --keep-days apply to name-keyed registries only",
      undefined,
      { option: opts.keepCommits !== undefined ? "--keep-commits" : "--keep-days" },
    );
  // A registry this run creates is removed again if the import fails: nothing half-made stays on disk.
  const before = existing === undefined ? entriesOf(opts.db) : undefined;
  const store = named
    ? NameStore.openOrCreate(opts.db, { ...cfg, ...(retention ? { retention } : {}) })
    : RegistryStore.openOrCreate(opts.db, cfg);
  if (retention !== undefined && store instanceof NameStore) store.setRetention(retention);
  let first = true;
  const sourceForRun = () => {
    if (first) {
      first = false;
      return probe;
    }
    return makeSource();
  };
  // What the import will read: the dataset's records up to the limit; a file's records up to the limit, or all its bytes.
  const expected =
    opts.source !== undefined
      ? limit === "all"
        ? NPM_REPOS_RECORDS
        : Math.min(limit ?? 100_000, NPM_REPOS_RECORDS)
      : typeof limit === "number"
        ? limit
        : undefined;
  const bar =
    opts.progress && process.stderr.isTTY
      ? new ProgressLine({ records: expected, bytes: opts.source !== undefined ? Infinity : probe.totalBytes })
      : undefined;
  const malformed = (i: ImportIssue) => {
    bar?.clear();
    process.stderr.write(`line ${i.line}: ${i.code}: ${i.message}\n`);
  };
  let report: ImportReport | NameImportReport;
  let failed = false;
  try {
    const importOptions = {
      onError: opts.onError,
      ...(opts.batchSize !== undefined ? { batchSize: integerOption("--batch-size", opts.batchSize, 1) } : {}),
      ...(opts.threads !== undefined ? { threads: integerOption("--threads", opts.threads, 0) } : {}),
      onMalformed: malformed,
      ...(bar
        ? {
            onProgress: (p: { imported: number; bytesRead: number; malformed: number }) =>
              bar.update(p.imported, p.bytesRead, p.malformed),
          }
        : {}),
    };
    report =
      store instanceof NameStore
        ? await importNames(store, sourceForRun, importOptions)
        : await importRecords(store, sourceForRun, importOptions);
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    bar?.stop();
    await store.close();
    if (failed && before !== undefined) removeCreated(opts.db, before);
  }
  if (opts.json) {
    process.stdout.write(JSON.stringify({ ...report, root: formatRoot(report.root) }) + "\n");
  } else {
    const t = report.timings;
    const rate = report.imported / (t.wallMs / 1000);
    process.stdout.write(
      `imported ${report.imported} records from ${report.source} into ${opts.db}\n` +
        ("firstSlot" in report
          ? report.imported > 0
            ? `slots ${(report as ImportReport).firstSlot}..${(report as ImportReport).firstSlot + report.imported - 1}, `
            : "no new slots, "
          : `mapping ${NAME_MAPPING_ID} (keys: Keccak-256 prefixes of the names), `) +
        `batches ${report.firstBatch}..${report.lastBatch}${report.malformed > 0 ? `, ${report.malformed} malformed records skipped` : ""}${"present" in report && (report as ImportReport).present > 0 ? `, ${(report as ImportReport).present} already in the registry (same value, left as they are)` : ""}\n` +
        `root ${digestText(report.root)}\n` +
        `time ${(t.wallMs / 1000).toFixed(1)} s (${Math.round(rate)} records/s; ${t.checkMs > 0 ? `check pass ${ms(t.checkMs)}, ` : ""}parse ${ms(t.parseMs)}, hash ${ms(t.hashMs)} on ${report.threads || "the main"} thread${report.threads === 1 ? "" : "s"}, ${t.sortMs !== undefined ? `sort ${ms(t.sortMs)}, ` : ""}tree ${ms(t.treeMs)}, writes ${ms(t.writeMs)})\n`,
    );
  }
  setExit(EXIT_OK);
}
