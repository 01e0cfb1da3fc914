/**
 * `ssgkr registry import` at its edges: an updates file (prove-block's input) answered with one
 * line that points to `registry prove-block`, and the progress bar's share and time left measured
 * against what the import will read (a `--limit` stops it long before the file ends).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { updatesFileHint } from "../../src/cli/commands/registry-import-run.js";
import { etaText, progressFraction } from "../../src/cli/commands/import-progress.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const work = mkdtempSync(join(tmpdir(), "ssgkr-import-edges-"));
after(() => rmSync(work, { recursive: true, force: true }));

const UPDATES = Array.from({ length: 64 }, (_, i) =>
  JSON.stringify(
    i % 2 === 0
      ? { op: "insert", name: `pkg-${i}`, value: `https://example.org/${i}` }
      : { op: "delete", name: `pkg-${i - 1}` },
  ),
).join("\n");

test("import of an updates file: one line `error BAD_SOURCE: …` pointing to `registry prove-block`, exit 2, nothing created", () => {
  const file = join(work, "updates.ndjson");
  writeFileSync(file, `\n${UPDATES}\n`);
  const db = join(work, "db");
  const r = spawnSync(process.execPath, [bin, "registry", "import", "--db", db, "--file", file], { encoding: "utf8" });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.equal(r.stdout, "");
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0]!,
    /^error BAD_SOURCE: .*updates\.ndjson holds updates \(line 2: \{"op": "insert", …\}\), not records: /,
  );
  assert.match(lines[0]!, /`ssgkr registry prove-block --db DIR --updates .*updates\.ndjson --out BLOCKDIR`/);
  assert.doesNotMatch(r.stderr, /BAD_RECORD/);
  assert.equal(existsSync(db), false, "no registry is created for a file it will not import");
});

test("updatesFileHint: only for NDJSON whose first record has an op; records, other formats and unreadable files pass on", () => {
  const records = join(work, "records.ndjson");
  writeFileSync(records, '{"name":"a","value":"https://example.org/a"}\n{"op":"insert","name":"b","value":null}\n');
  assert.equal(updatesFileHint(records), undefined);
  const broken = join(work, "broken.jsonl");
  writeFileSync(broken, "{not json\n");
  assert.equal(updatesFileHint(broken), undefined);
  const csv = join(work, "updates.csv");
  writeFileSync(csv, UPDATES);
  assert.equal(updatesFileHint(csv), undefined);
  assert.equal(updatesFileHint(join(work, "missing.ndjson")), undefined);
  const jsonl = join(work, "updates.jsonl");
  writeFileSync(jsonl, UPDATES);
  assert.match(updatesFileHint(jsonl)!, /holds updates \(line 1: \{"op": "insert", …\}\)/);
});

test("progress: with --limit the share is measured against the records it will read, not the whole file's bytes", () => {
  // --limit 5000 of a 100,000-record file: the records reach their goal while the bytes are at 5 %
  const limited = { records: 5000, bytes: 4_000_000 };
  assert.equal(progressFraction(limited, { records: 5000, bytesRead: 200_000 }), 1);
  assert.equal(progressFraction(limited, { records: 2500, bytesRead: 100_000 }), 0.5);
  // the file ends before the limit: the bytes reach the end
  assert.equal(progressFraction(limited, { records: 300, bytesRead: 4_000_000 }), 1);
  // no limit: the bytes alone
  assert.equal(progressFraction({ records: undefined, bytes: 1000 }, { records: 10, bytesRead: 250 }), 0.25);
  // the dataset: records alone (its bytes are not what a limit reads)
  assert.equal(progressFraction({ records: 5000, bytes: Infinity }, { records: 1000, bytesRead: 9e9 }), 0.2);
  assert.equal(progressFraction({ records: 0, bytes: 0 }, { records: 0, bytesRead: 0 }), 0);
});

test("progress: the time left is … until there is something to extrapolate from, never NFs", () => {
  assert.equal(etaText(0, 0), "…");
  assert.equal(etaText(0, 5000), "…", "nothing counted yet");
  assert.equal(etaText(0.5, 200), "…", "under a second of work");
  assert.equal(etaText(Number.NaN, 5000), "…");
  assert.equal(etaText(0.5, 4000), "4s");
  assert.equal(etaText(0.1, 10_000), "1m30s");
  assert.equal(etaText(1, 10), "0s");
  for (const f of [0, 0.001, 0.01, 0.3, 0.99, 1])
    for (const t of [0, 10, 999, 1000, 60_000]) assert.doesNotMatch(etaText(f, t), /NF|Infinity|NaN/);
});
