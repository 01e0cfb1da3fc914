/**
 * The implementation of `ssgkr registry check`, defined in registry-check.ts, which imports this file only when the command runs.
 */
import cliProgress from "cli-progress";
import { EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { RegistryStore } from "../../registry/store/store.js";
import { checkRegistry, type CheckProgress, type CheckReport, type NonNfcRecord } from "../../registry/store/check.js";
import { spelled } from "../../registry/name-form.js";
import { RegistryError } from "../../registry/errors.js";
import { formatRoot } from "../../registry/root.js";
import { NameStore } from "../../registry/store/name-store.js";
import { registryMapping } from "../../registry/store/open-any.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";
import { integerOption } from "./registry-args.js";
import { digestText, ms } from "./registry-print.js";

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

/** The lines of `registry check` that list records under names not in Unicode NFC ("" when there are none). */
function nonNfcLines(list: readonly NonNfcRecord[]): string {
  if (list.length === 0) return "";
  const where = (r: NonNfcRecord) => (r.slot !== undefined ? `slot ${r.slot}` : `key ${r.key}`);
  return (
    `${list.length} record${list.length === 1 ? "" : "s"} under names not in Unicode NFC (kept; new records are written only under NFC names):\n` +
    list.map((r) => `  ${where(r)} ${r.state} ${spelled(r.name)}; NFC form ${spelled(r.nfc)}\n`).join("")
  );
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

/** The action of `ssgkr registry check`, with what commander parsed (defined in registry-check.ts). */
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
