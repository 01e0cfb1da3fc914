/**
 * The implementation of the `ssgkr registry` commands defined in registry.ts (import, get, root,
 * history, check, upgrade, retention, insert, replace, delete, restore, prove), which imports this
 * file only when one of them runs.
 */
import cliProgress from "cli-progress";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import {
  proveStatement,
  REGISTRY_STATEMENTS,
  type RegistryProof,
  type RegistryStatement,
} from "../../registry/prove.js";
import { requestToJson } from "../../sync/request.js";
import { RegistryStore } from "../../registry/store/store.js";
import { upgradeRegistry } from "../../registry/store/upgrade.js";
import { parseRoot } from "../../registry/root.js";
import type { Retention } from "../../registry/store/name-versions.js";
import { importRecords, type ImportIssue, type ImportReport } from "../../registry/import/import.js";
import { checkRegistry, type CheckProgress, type CheckReport, type NonNfcRecord } from "../../registry/store/check.js";
import { spelled } from "../../registry/name-form.js";
import { fileSource, npmReposSource, NPM_REPOS_RECORDS } from "../../registry/import/dataset.js";
import {
  deleteRecord,
  insertRecord,
  replaceRecord,
  resolveTarget,
  restoreRecord,
  type RecordTarget,
  type UpdateResult,
} from "../../registry/operations.js";
import { describeValue, type RecordValue } from "../../registry/mapping.js";
import { RecordState } from "../../registry/store/record-codec.js";
import { RegistryError } from "../../registry/errors.js";
import { formatRoot } from "../../registry/root.js";
import type { RecordSource } from "../../registry/import/sources/source.js";
import { describeLeaf, hashLeaf, LeafTag, type Leaf } from "../../smt/leaf.js";
import { computeRoot } from "../../smt/path.js";
import { digestEquals } from "../../hash/digest.js";
import { NameStore } from "../../registry/store/name-store.js";
import { importNames, type NameImportReport } from "../../registry/import/name-import.js";
import { openRegistry, registryMapping } from "../../registry/store/open-any.js";
import { NAME_MAPPING_ID, SLOT_MAPPING_ID } from "../../registry/name-key.js";
import { nameGet, nameNoticeJson, nameNoticeLine, nameProve, nameUpdate } from "./registry-names.js";

/** The retention options `--keep-commits` and `--keep-days`, or undefined when neither is given. */
function retentionOptions(opts: { keepCommits?: string; keepDays?: string }): Partial<Retention> | undefined {
  if (opts.keepCommits === undefined && opts.keepDays === undefined) return undefined;
  const days = opts.keepDays === undefined ? undefined : Number(opts.keepDays);
  if (days !== undefined && (!/^[0-9]+(\.[0-9]+)?$/.test(opts.keepDays!) || !Number.isFinite(days)))
    throw new CliError(
      "BAD_OPTION",
      `--keep-days must be a number ≥ 0, got ${JSON.stringify(opts.keepDays)}`,
      undefined,
      { option: "--keep-days" },
    );
  return {
    ...(opts.keepCommits !== undefined ? { commits: integerOption("--keep-commits", opts.keepCommits, 0) } : {}),
    ...(days !== undefined ? { days } : {}),
  };
}

function integerOption(flag: string, text: string, min: number): number {
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new CliError("BAD_OPTION", `${flag} must be an integer ≥ ${min}, got ${JSON.stringify(text)}`, undefined, {
      option: flag,
    });
  }
  return Number(text);
}

/** `registry check` of a name-keyed registry: every row's checksum and every stored branch against the head root. */
async function checkNameRegistry(db: string, json: boolean): Promise<void> {
  const started = performance.now();
  let named: NameStore;
  try {
    named = NameStore.open(db, { readOnly: true });
  } catch (e) {
    if (e instanceof RegistryError && e.code === "DB_CORRUPT")
      throw new CliError("DB_CORRUPT", e.message, EXIT_VERDICT);
    throw e;
  }
  let report: { records: number; branches: number; root: Uint32Array; nonNfc: NonNfcRecord[] };
  try {
    report = named.check();
  } catch (e) {
    if (e instanceof RegistryError && e.code === "DB_CORRUPT")
      throw new CliError("DB_CORRUPT", e.message, EXIT_VERDICT);
    throw e;
  } finally {
    await named.close();
  }
  if (json)
    process.stdout.write(
      JSON.stringify({
        ok: true,
        mapping: NAME_MAPPING_ID,
        records: report.records,
        branches: report.branches,
        root: formatRoot(report.root),
        nonNfc: report.nonNfc,
      }) + "\n",
    );
  else
    process.stdout.write(
      `ok: ${report.records} records and ${report.branches} branch rows checked (mapping ${NAME_MAPPING_ID}); every path recomputes root ${digestText(report.root)} (${ms(performance.now() - started)})\n` +
        nonNfcLines(report.nonNfc),
    );
}

/** The lines of `registry check` that list records under names not in Unicode NFC ("" when there are none). */
function nonNfcLines(list: readonly NonNfcRecord[]): string {
  if (list.length === 0) return "";
  const where = (r: NonNfcRecord) => (r.slot !== undefined ? `slot ${r.slot}` : `key ${r.key}`);
  return (
    `${list.length} record${list.length === 1 ? "" : "s"} under names not in Unicode NFC (kept; new records are written only under NFC names):\n` +
    list.map((r) => `  ${where(r)} ${r.state} ${spelled(r.name)}; NFC form ${spelled(r.nfc)}\n`).join("")
  );
}

function nameOnly(command: string, opts: { name?: string; slot?: string }): string {
  if (opts.slot !== undefined)
    throw new CliError(
      "USAGE",
      `registry ${command}: this registry is name-keyed (${NAME_MAPPING_ID}): records are addressed by --name, not --slot`,
    );
  if (opts.name === undefined) throw new CliError("MISSING_OPTION", `registry ${command}: --name N is required`);
  return opts.name;
}

function targetOf(command: string, opts: { name?: string; slot?: string }): RecordTarget {
  if ((opts.name === undefined) === (opts.slot === undefined))
    throw new CliError("USAGE", `registry ${command}: give exactly one of --name N and --slot S`);
  if (opts.name !== undefined) return { name: opts.name };
  if (!/^[0-9]+$/.test(opts.slot!) || !Number.isSafeInteger(Number(opts.slot))) {
    throw new RegistryError(
      "SLOT_OUT_OF_RANGE",
      `--slot must be a non-negative integer, got ${JSON.stringify(opts.slot)}`,
    );
  }
  return { slot: Number(opts.slot) };
}

function valueOf(kind: string, opts: { value?: string; null?: boolean; fields?: string }): RecordValue | undefined {
  const given = [opts.value !== undefined, opts.null === true, opts.fields !== undefined].filter(Boolean).length;
  if (kind === "delete") return undefined;
  if (given > 1 || (given === 0 && kind !== "restore"))
    throw new CliError("USAGE", `registry ${kind}: give exactly one of --value TEXT, --null and --fields LIST`);
  if (opts.null) return null;
  if (opts.value !== undefined) return opts.value;
  if (opts.fields !== undefined) {
    const parts = opts.fields.trim() === "" ? [] : opts.fields.split(",").map((s) => s.trim());
    const fields = parts.map((p, i) => {
      if (!/^[0-9]+$/.test(p))
        throw new RegistryError(
          "BAD_VALUE",
          `--fields element ${i} ${JSON.stringify(p)} is not a non-negative integer`,
        );
      return Number(p);
    });
    return { fields };
  }
  return undefined;
}

/** A digest as the CLI prints it: its 32 bytes in hex (`formatRoot`). */
const digestText = formatRoot;

function ms(x: number): string {
  return `${(x / 1000).toFixed(1)} s`;
}

function valueJson(v: RecordValue): unknown {
  return v === null || typeof v === "string" ? v : { fields: v.fields };
}

function leafJson(leaf: Leaf): unknown {
  if (leaf.tag !== LeafTag.Occupied) return { tag: leaf.tag, payload: [], identity: "00".repeat(32) };
  return { tag: leaf.tag, payload: Array.from(leaf.payload), identity: Buffer.from(leaf.identity).toString("hex") };
}

/** The progress bar of `registry check` on stderr: phase, done/total. */
class CheckProgressLine {
  private readonly bar: cliProgress.SingleBar;

  constructor() {
    this.bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: "check |{bar}| {percentage}% | {phase} {value}/{total} | ETA {eta_formatted}",
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(1, 0, { phase: "history" });
  }

  update(p: CheckProgress): void {
    this.bar.setTotal(Math.max(1, p.total));
    this.bar.update(p.done, { phase: p.phase });
  }

  stop(): void {
    this.bar.stop();
  }
}

/** The progress bar on stderr: records, records/s and ETA. */
class ProgressLine {
  private readonly bar: cliProgress.SingleBar;
  private readonly started = performance.now();
  private readonly byBytes: boolean;

  constructor(records: number | undefined, totalBytes: number) {
    this.byBytes = records === undefined;
    this.bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: `import |{bar}| {percentage}% | {records} records | {rate} records/s | ETA {eta_formatted}{skipped}`,
        hideCursor: true,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(this.byBytes ? totalBytes : records!, 0, { records: 0, rate: 0, skipped: "" });
  }

  update(imported: number, bytesRead: number, malformed: number): void {
    const s = (performance.now() - this.started) / 1000;
    this.bar.update(this.byBytes ? bytesRead : imported + malformed, {
      records: imported,
      rate: Math.round(imported / Math.max(s, 1e-3)),
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

/** The action of `ssgkr registry import`, with what commander parsed (the command's definition is in registry.ts). */
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
  const expected =
    opts.source !== undefined
      ? limit === "all"
        ? NPM_REPOS_RECORDS
        : Math.min(limit ?? 100_000, NPM_REPOS_RECORDS)
      : undefined;
  const bar = opts.progress && process.stderr.isTTY ? new ProgressLine(expected, probe.totalBytes) : undefined;
  const malformed = (i: ImportIssue) => {
    bar?.clear();
    process.stderr.write(`line ${i.line}: ${i.code}: ${i.message}\n`);
  };
  let report: ImportReport | NameImportReport;
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
  } finally {
    bar?.stop();
    await store.close();
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

/** The action of `ssgkr registry get`, with what commander parsed (the command's definition is in registry.ts). */
export async function runGetCommand(
  setExit: (code: number) => void,
  opts: { db: string; name?: string; slot?: string; json?: boolean },
): Promise<void> {
  if (registryMapping(opts.db) === NAME_MAPPING_ID) {
    const name = nameOnly("get", opts);
    const named = NameStore.open(opts.db, { readOnly: true });
    try {
      nameGet(named, name, opts.json === true);
    } finally {
      await named.close();
    }
    setExit(EXIT_OK);
    return;
  }
  const target = targetOf("get", opts);
  const store = RegistryStore.open(opts.db, { readOnly: true });
  try {
    const slot = resolveTarget(store, target).slot;
    const state = store.slotState(slot);
    const leafDigest = hashLeaf(state.leaf, store.config.leafMaxFields);
    const verified = digestEquals(
      computeRoot(state.leaf, BigInt(slot), state.siblings, store.config.depth, store.config.leafMaxFields),
      state.head.root,
    );
    const status =
      state.leaf.tag === LeafTag.Occupied ? "live" : state.leaf.tag === LeafTag.Tombstone ? "deleted" : "never used";
    if (opts.json) {
      process.stdout.write(
        JSON.stringify({
          slot,
          status,
          name: state.record?.name ?? null,
          value: state.record ? valueJson(state.record.value) : null,
          leaf: leafJson(state.leaf),
          leafDigest: Array.from(leafDigest),
          siblings: state.siblings.map((s) => Array.from(s)),
          root: formatRoot(state.head.root),
          batch: state.head.batch,
          pathVerified: verified,
          ...("name" in target ? nameNoticeJson(target.name) : {}),
        }) + "\n",
      );
    } else {
      const lines = [
        `slot ${slot}: ${status}${state.record?.state === RecordState.Deleted ? " (Tombstone leaf)" : ""}`,
      ];
      if (state.record)
        lines.push(`name ${JSON.stringify(state.record.name)}`, `value ${describeValue(state.record.value)}`);
      lines.push(
        `leaf ${describeLeaf(state.leaf)}`,
        `leaf digest ${digestText(leafDigest)}`,
        `root ${digestText(state.head.root)} (batch ${state.head.batch})`,
        `path ${verified ? "recomputes the root" : "DOES NOT recompute the root"}`,
      );
      process.stdout.write(lines.join("\n") + "\n" + ("name" in target ? nameNoticeLine(target.name) : ""));
    }
  } finally {
    await store.close();
  }
  setExit(EXIT_OK);
}

/** The action of `ssgkr registry root`, with what commander parsed (the command's definition is in registry.ts). */
export async function runRootCommand(
  setExit: (code: number) => void,
  opts: { db: string; json?: boolean; hex?: boolean },
): Promise<void> {
  if (opts.json && opts.hex)
    throw new CliError("BAD_OPTION", "--json and --hex exclude each other", undefined, { option: "--hex" });
  await readOnlyRegistry(opts.db, (any) => {
    const h = any.store.head();
    const c = any.store.config;
    const named = any.mapping === NAME_MAPPING_ID;
    const nextSlot = "nextSlot" in h ? h.nextSlot : undefined;
    if (opts.hex) process.stdout.write(`${formatRoot(h.root)}\n`);
    else if (opts.json)
      process.stdout.write(
        JSON.stringify(
          named
            ? {
                root: formatRoot(h.root),
                batch: h.batch,
                records: (h as { records: number }).records,
                live: h.live,
                deleted: h.deleted,
                mapping: NAME_MAPPING_ID,
                depth: c.depth,
                leafMaxFields: c.leafMaxFields,
              }
            : {
                root: formatRoot(h.root),
                batch: h.batch,
                nextSlot,
                live: h.live,
                deleted: h.deleted,
                depth: c.depth,
                leafMaxFields: c.leafMaxFields,
              },
        ) + "\n",
      );
    else
      process.stdout.write(
        `root ${digestText(h.root)}\nbatch ${h.batch}, ${h.live} live, ${h.deleted} deleted, ${named ? `mapping ${NAME_MAPPING_ID} (name-keyed)` : `next slot ${nextSlot}`}, depth ${c.depth}, leaf bound ${c.leafMaxFields}\n`,
      );
  });
  setExit(EXIT_OK);
}

/** The action of `ssgkr registry history`, with what commander parsed (the command's definition is in registry.ts). */
export async function runHistoryCommand(
  setExit: (code: number) => void,
  opts: { db: string; json?: boolean },
): Promise<void> {
  await readOnlyRegistry(opts.db, (any) => {
    if (any.mapping === NAME_MAPPING_ID) {
      for (const e of any.store.history()) {
        if (opts.json) process.stdout.write(JSON.stringify({ ...e, root: formatRoot(e.root) }) + "\n");
        else
          process.stdout.write(
            `batch ${e.batch} ${e.committedAt} ${e.kind}${e.name !== undefined ? ` name ${JSON.stringify(e.name)}` : ""} records ${e.written} live ${e.live} deleted ${e.deleted} root ${digestText(e.root)}\n`,
          );
      }
      return;
    }
    for (const e of any.store.history()) {
      if (opts.json) process.stdout.write(JSON.stringify({ ...e, root: formatRoot(e.root) }) + "\n");
      else
        process.stdout.write(
          `batch ${e.batch} ${e.committedAt} ${e.kind}${e.slot !== undefined ? ` slot ${e.slot}` : ""} records ${e.records} live ${e.live} deleted ${e.deleted} next ${e.nextSlot} root ${digestText(e.root)}\n`,
        );
    }
  });
  setExit(EXIT_OK);
}

/** Opens the registry at `db` read-only (either mapping), runs `fn` on it and closes it. */
async function readOnlyRegistry(db: string, fn: (any: ReturnType<typeof openRegistry>) => void): Promise<void> {
  const any = openRegistry(db, { readOnly: true });
  try {
    fn(any);
  } finally {
    await any.store.close();
  }
}

/** The action of `ssgkr registry check`, with what commander parsed (the command's definition is in registry.ts). */
export async function runCheckCommand(
  setExit: (code: number) => void,
  opts: { db: string; threads?: string; progress: boolean; json?: boolean },
): Promise<void> {
  const threads = opts.threads === undefined ? undefined : integerOption("--threads", opts.threads, 0);
  if (threads !== undefined && threads > 64)
    throw new CliError("BAD_OPTION", `--threads must be an integer in [0, 64], got ${threads}`);
  if (registryMapping(opts.db) === NAME_MAPPING_ID) {
    await checkNameRegistry(opts.db, opts.json === true);
    setExit(EXIT_OK);
    return;
  }
  let store: RegistryStore;
  try {
    store = RegistryStore.open(opts.db, { readOnly: true });
  } catch (e) {
    if (e instanceof RegistryError && e.code === "DB_CORRUPT")
      throw new CliError("DB_CORRUPT", e.message, EXIT_VERDICT);
    throw e;
  }
  const bar = opts.progress && process.stderr.isTTY ? new CheckProgressLine() : undefined;
  let report: CheckReport;
  try {
    report = await checkRegistry(store, {
      ...(threads !== undefined ? { threads } : {}),
      ...(bar ? { onProgress: (p) => bar.update(p) } : {}),
    });
  } catch (e) {
    if (e instanceof RegistryError && e.code === "DB_CORRUPT")
      throw new CliError("DB_CORRUPT", e.message, EXIT_VERDICT);
    throw e;
  } finally {
    bar?.stop();
    await store.close();
  }
  if (opts.json) process.stdout.write(JSON.stringify({ ok: true, ...report, root: formatRoot(report.root) }) + "\n");
  else
    process.stdout.write(
      `ok: ${report.rows} rows checked, ${report.records} slots (${report.live} live, ${report.deleted} deleted), ${report.tiles} tiles, ${report.historyEntries} batches; every path recomputes root ${digestText(report.root)} of batch ${report.batch} (${ms(report.ms)})\n` +
        nonNfcLines(report.nonNfc),
    );
  setExit(EXIT_OK);
}

/** The action of `ssgkr registry upgrade`, with what commander parsed (the command's definition is in registry.ts). */
export async function runUpgradeCommand(
  setExit: (code: number) => void,
  opts: { db: string; keepCommits?: string; keepDays?: string },
): Promise<void> {
  const retention = retentionOptions(opts);
  const r = upgradeRegistry(opts.db, retention ? { retention } : {});
  const check = `run \`ssgkr registry check --db ${opts.db}\` for a full check`;
  if (r.fromVersion === r.toVersion)
    process.stdout.write(`${opts.db} is already at format ${r.toVersion}; nothing written\n`);
  else if (r.toVersion === 2)
    process.stdout.write(`upgraded ${opts.db} from format 1 to 2: ${r.rows} rows now carry a checksum; ${check}\n`);
  else
    process.stdout.write(
      `upgraded ${opts.db} from format ${r.fromVersion} to ${r.toVersion}: ${r.rows} rows rewritten; roots from the current head on are provable (earlier ones are not); ${check}\n`,
    );
  setExit(EXIT_OK);
}

/** The action of `ssgkr registry retention`, with what commander parsed (the command's definition is in registry.ts). */
export async function runRetentionCommand(
  setExit: (code: number) => void,
  opts: { db: string; keepCommits?: string; keepDays?: string; json?: boolean },
): Promise<void> {
  if (registryMapping(opts.db) !== NAME_MAPPING_ID)
    throw new CliError(
      "USAGE",
      `registry retention: ${opts.db} is not a name-keyed registry (slot-v1 registries prove at their head only)`,
    );
  const retention = retentionOptions(opts);
  const store = NameStore.open(opts.db, { readOnly: retention === undefined });
  try {
    if (retention !== undefined) store.setRetention(retention);
    const w = store.window();
    if (opts.json)
      process.stdout.write(
        JSON.stringify({
          keep_commits: w.retention.commits,
          keep_days: w.retention.days,
          oldest_root: formatRoot(w.oldestRoot),
          oldest_size: w.oldestBatch,
          head_size: w.headBatch,
        }) + "\n",
      );
    else
      process.stdout.write(
        `retention: the last ${w.retention.commits} batches and ${w.retention.days} days (applied at the next commit)\noldest provable root ${formatRoot(w.oldestRoot)} (size ${w.oldestBatch}); head size ${w.headBatch}\n`,
      );
  } finally {
    await store.close();
  }
  setExit(EXIT_OK);
}

/** The action of `ssgkr registry insert|replace|delete|restore` (`kind`), with what commander parsed (the definitions are in registry.ts). */
export async function runUpdateCommand(
  setExit: (code: number) => void,
  kind: "insert" | "replace" | "delete" | "restore",
  opts: { db: string; name?: string; slot?: string; value?: string; null?: boolean; fields?: string; json?: boolean },
): Promise<void> {
  const value = valueOf(kind, opts);
  if (kind === "insert" && opts.name === undefined)
    throw new CliError("MISSING_OPTION", "registry insert: --name is required");
  if (registryMapping(opts.db) === NAME_MAPPING_ID) {
    const name = nameOnly(kind, opts);
    const named = NameStore.open(opts.db);
    try {
      nameUpdate(named, kind, name, value, opts.json === true);
    } finally {
      await named.close();
    }
    setExit(EXIT_OK);
    return;
  }
  const target = kind === "insert" ? { name: opts.name! } : targetOf(kind, opts);
  const store = RegistryStore.open(opts.db);
  let r: UpdateResult;
  try {
    if (kind === "insert") r = insertRecord(store, opts.name!, value!);
    else if (kind === "replace") r = replaceRecord(store, target, value!);
    else if (kind === "delete") r = deleteRecord(store, target);
    else r = restoreRecord(store, target, value);
  } finally {
    await store.close();
  }
  if (opts.json) {
    process.stdout.write(
      JSON.stringify({
        kind: r.kind,
        slot: r.slot,
        name: r.name,
        oldLeaf: leafJson(r.oldLeaf),
        newLeaf: leafJson(r.newLeaf),
        oldRoot: formatRoot(r.oldRoot),
        newRoot: formatRoot(r.newRoot),
        batch: r.entry.batch,
      }) + "\n",
    );
  } else {
    process.stdout.write(
      `${r.kind} ${JSON.stringify(r.name)} at slot ${r.slot} (batch ${r.entry.batch})\n${describeLeaf(r.oldLeaf)} → ${describeLeaf(r.newLeaf)}\nold root ${digestText(r.oldRoot)}\nnew root ${digestText(r.newRoot)}\n`,
    );
  }
  setExit(EXIT_OK);
}

/** The action of `ssgkr registry prove`, with what commander parsed (the command's definition is in registry.ts). */
export async function runProveCommand(
  setExit: (code: number) => void,
  statement: string,
  opts: {
    db: string;
    name?: string;
    slot?: string;
    value?: string;
    null?: boolean;
    fields?: string;
    root?: string;
    profile: string;
    out: string;
  },
): Promise<void> {
  if (!(REGISTRY_STATEMENTS as readonly string[]).includes(statement)) {
    throw new CliError(
      "BAD_ARGUMENT",
      `registry prove: unknown statement ${JSON.stringify(statement)} (${REGISTRY_STATEMENTS.join(", ")})`,
    );
  }
  const st = statement as RegistryStatement;
  const isUpdate = st !== "membership" && st !== "nonmembership";
  const value = isUpdate
    ? valueOf(st === "insert" || st === "replace" ? "insert" : st === "restore" ? "restore" : "delete", opts)
    : undefined;
  if (!isUpdate && (opts.value !== undefined || opts.null || opts.fields !== undefined))
    throw new CliError("USAGE", `registry prove ${st}: takes no value`);
  if (st === "insert" && opts.name === undefined)
    throw new CliError("MISSING_OPTION", "registry prove insert: --name is required");
  if (opts.profile !== "v1" && opts.profile !== "v3")
    throw new CliError("BAD_OPTION", `--profile must be v1 or v3, got ${JSON.stringify(opts.profile)}`, undefined, {
      option: "--profile",
    });
  const root = opts.root === undefined ? undefined : parseRoot(opts.root, "--root");
  if (root !== undefined && isUpdate)
    throw new CliError(
      "USAGE",
      `registry prove ${st}: --root applies to membership and nonmembership (an update starts at the head)`,
    );
  if (registryMapping(opts.db) === NAME_MAPPING_ID) {
    const name = nameOnly(`prove ${st}`, opts);
    const named = NameStore.open(opts.db, { readOnly: !isUpdate });
    try {
      nameProve(named, st, name, value, opts.out, root, opts.profile);
    } finally {
      await named.close();
    }
    setExit(EXIT_OK);
    return;
  }
  if (root !== undefined)
    throw new CliError(
      "USAGE",
      `registry prove ${st}: --root applies to name-keyed registries (a slot-v1 registry proves at its head)`,
    );
  if (opts.profile !== "v1")
    throw new CliError(
      "USAGE",
      `registry prove ${st}: --profile ${opts.profile} applies to name-keyed registries (a slot-v1 registry proves in compat-v1)`,
    );
  const target = st === "insert" ? { name: opts.name! } : targetOf(`prove ${st}`, opts);
  const store = RegistryStore.open(opts.db, { readOnly: !isUpdate });
  let p: RegistryProof;
  try {
    p = proveStatement(store, st, target, value);
  } catch (e) {
    if (
      e instanceof RegistryError &&
      ((st === "membership" && e.code === "RECORD_ABSENT") || (st === "nonmembership" && e.code === "RECORD_LIVE"))
    ) {
      throw new CliExit(EXIT_VERDICT, `FALSE ${e.code}: ${e.message}`);
    }
    throw e;
  } finally {
    await store.close();
  }
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, "request.json"), JSON.stringify(requestToJson(p.request), null, 2) + "\n");
  writeFileSync(join(opts.out, "proof.bin"), p.proof);
  const slotStatement = p.update
    ? {
        registry_mapping: SLOT_MAPPING_ID,
        update: st,
        slot: p.slot,
        name: p.name ?? null,
        old_root: formatRoot(p.request.oldRoot),
        new_root: formatRoot(p.request.newRoot),
      }
    : {
        registry_mapping: SLOT_MAPPING_ID,
        statement: st,
        slot: p.slot,
        name: p.name ?? null,
        root: formatRoot(p.request.oldRoot),
        note: "a slot-v1 proof is about one slot: it does not show that the name holds no other slot",
      };
  writeFileSync(join(opts.out, "statement.json"), JSON.stringify(slotStatement, null, 2) + "\n");
  const roots = p.update
    ? `old_root=${digestText(p.request.oldRoot)} new_root=${digestText(p.request.newRoot)} batch=${p.update.entry.batch}`
    : `root=${digestText(p.request.oldRoot)}`;
  process.stdout.write(
    `${st} slot=${p.slot}${p.name !== undefined ? ` name=${JSON.stringify(p.name)}` : ""} kind=${p.request.kind} depth=${p.request.depth} bytes=${p.proof.length} prove_ms=${p.proveMs.toFixed(1)} ${roots}\n${"name" in target ? nameNoticeLine(target.name) : ""}`,
  );
  setExit(EXIT_OK);
}
