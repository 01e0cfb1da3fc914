import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { SparseMerkleTree } from "../../src/smt/tree.js";
import { RegistryError } from "../../src/registry/errors.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { importRecords, type ImportIssue } from "../../src/registry/import/import.js";
import {
  fileSource,
  npmReposSource,
  NPM_REPOS_SUBSET_RECORDS,
  npmReposFullPath,
} from "../../src/registry/import/dataset.js";
import { recordLeaf, type RecordValue } from "../../src/registry/mapping.js";
import { JsonObjectSource } from "../../src/registry/import/sources/json-object.js";
import { readInput, type RecordSink } from "../../src/registry/import/sources/source.js";
import { insertRecord } from "../../src/registry/operations.js";
import { tempDir, tempFile } from "./support/tmp.js";

const code = (c: string) => (e: unknown) => e instanceof RegistryError && e.code === c;
const arr = (d: ArrayLike<number>) => Array.from(d);

function referenceRoot(records: [string, RecordValue][], depth = 24): number[] {
  const t = new SparseMerkleTree({ depth });
  records.forEach(([name, value], slot) => {
    const leaf = recordLeaf(name, value, 31);
    t.insert(BigInt(slot), leaf.payload, leaf.identity);
  });
  return arr(t.root());
}

/** Collects what a source delivers. */
function collect(make: () => { next(sink: RecordSink, n: number): boolean }): {
  records: [number, string, unknown][];
  issues: [number, string][];
} {
  const records: [number, string, unknown][] = [];
  const issues: [number, string][] = [];
  const text = (b: Uint8Array, s: number, e: number) => Buffer.from(b.buffer, b.byteOffset + s, e - s).toString("utf8");
  const src = make();
  while (
    src.next(
      {
        record: (line, n, ns, ne, form, v, vs, ve) =>
          records.push([
            line,
            text(n, ns, ne),
            form === 0
              ? null
              : form === 1
                ? text(v, vs, ve)
                : Array.from(new Uint32Array(Uint8Array.from(v.subarray(vs, ve)).buffer)),
          ]),
        malformed: (line, message) => issues.push([line, message]),
      },
      3,
    )
  );
  return { records, issues };
}

test("JSON-object source: file order (integer-like names stay in place), escapes, malformed entries by line", () => {
  const text = [
    "{",
    '  "b": "https://github.com/b/b",',
    '  "10": null,',
    '  "2": "x\\u00e9\\"q",',
    '  "bad": 12,',
    '  "c" "no colon",',
    '  "d": "ok"',
    "}",
  ].join("\n");
  const { records, issues } = collect(() => new JsonObjectSource(Buffer.from(text), "t"));
  assert.deepEqual(records, [
    [2, "b", "https://github.com/b/b"],
    [3, "10", null],
    [4, "2", 'xé"q'],
    [7, "d", "ok"],
  ]);
  assert.deepEqual(
    issues.map(([l]) => l),
    [5, 6],
  );
  assert.match(issues[0]![1], /string or null/);
  assert.throws(() => collect(() => new JsonObjectSource(Buffer.from("[1]"), "t")), code("BAD_SOURCE"));
  const truncated = collect(() => new JsonObjectSource(Buffer.from('{\n "a": null,\n'), "t"));
  assert.equal(truncated.records.length, 1);
  assert.equal(truncated.issues[0]![0], 3);
});

test("NDJSON and CSV sources: values, fields, null vs empty text, malformed lines with their numbers", () => {
  const nd = [
    '{"name":"a","value":"https://gitlab.com/a"}',
    "",
    '{"name":"b","value":null}',
    '{"name":"c","fields":[1,2,3]}',
    "not json",
    '{"name":"d"}',
    '{"name":"e","value":5}',
    '{"name":"f","value":"v","extra":1}',
  ].join("\n");
  const n = collect(() => fileSourceOf("x.ndjson", nd));
  assert.deepEqual(n.records, [
    [1, "a", "https://gitlab.com/a"],
    [3, "b", null],
    [4, "c", [1, 2, 3]],
  ]);
  assert.deepEqual(
    n.issues.map(([l]) => l),
    [5, 6, 7, 8],
  );
  const csv = [
    "name,value",
    "a,https://github.com/a",
    "b,",
    'c,""',
    '"d,1","multi',
    'line"',
    'e,"x""y"',
    "f,a,b",
    'g,x"y',
    'h,"ok"',
  ].join("\r\n");
  const c = collect(() => fileSourceOf("x.csv", csv));
  assert.deepEqual(c.records, [
    [2, "a", "https://github.com/a"],
    [3, "b", null],
    [4, "c", ""],
    [5, "d,1", "multi\r\nline"],
    [7, "e", 'x"y'],
    [10, "h", "ok"],
  ]);
  assert.deepEqual(
    c.issues.map(([l]) => l),
    [8, 9],
  );
  assert.throws(() => collect(() => fileSourceOf("y.csv", "id,url\na,b")), code("BAD_SOURCE"));
  assert.throws(() => fileSource(join(tempDir(), "missing.ndjson")), code("BAD_SOURCE"));
  assert.throws(() => fileSourceOf("z.txt", "x"), code("BAD_SOURCE"));
  const gz = tempFile("g.ndjson.gz", gzipSync(Buffer.from('{"name":"a","value":null}\n')));
  assert.equal(collect(() => fileSource(gz)).records.length, 1);
});

function fileSourceOf(name: string, content: string) {
  const path = tempFile(name, content);
  return fileSource(path);
}

test("import of the offline npm subset: root equals the in-memory tree, worker threads = inline, batches in history", async () => {
  const base = tempDir();
  const limit = 700;
  const records: [string, RecordValue][] = [];
  const subset = npmReposSource(limit);
  while (
    subset.next(
      {
        record: (_l, n, ns, ne, form, v, vs, ve) =>
          records.push([
            Buffer.from(n.subarray(ns, ne)).toString("utf8"),
            form === 0 ? null : Buffer.from(v.subarray(vs, ve)).toString("utf8"),
          ]),
        malformed: () => assert.fail("subset has no malformed records"),
      },
      1000,
    )
  );
  assert.equal(records.length, limit);
  const expected = referenceRoot(records);
  const roots: number[][] = [];
  for (const threads of [0, 2]) {
    const store = RegistryStore.openOrCreate(join(base, `t${threads}`));
    const report = await importRecords(store, () => npmReposSource(limit), { threads, batchSize: 256 });
    assert.equal(report.imported, limit);
    assert.equal(report.batches, 3);
    assert.deepEqual(arr(report.root), expected);
    assert.deepEqual(
      store.history().map((h) => h.nextSlot),
      [0, 256, 512, 700],
    );
    assert.equal(store.slotOf(records[5]![0]), 5);
    roots.push(arr(store.head().root));
    await store.close();
  }
  assert.deepEqual(roots[0], roots[1]);
  assert.equal(NPM_REPOS_SUBSET_RECORDS, 100_000);
});

test("malformed records: fail rejects the whole import and writes nothing; skip reports each by line and imports the rest", async () => {
  const lines = [
    '{"name":"a","value":"https://github.com/a"}',
    '{"name":"b","value":null}',
    "{broken",
    '{"name":"a","value":"dup"}',
    '{"name":"","value":"x"}',
    '{"name":"c","fields":[' + new Array(21).fill(1).join(",") + "]}",
    '{"name":"d","fields":[2130706433]}',
    '{"name":"e","value":"ok"}',
  ];
  const path = tempFile("in.ndjson", lines.join("\n"));
  const dir = join(tempDir(), "db");
  const store = RegistryStore.openOrCreate(dir);
  const seen: ImportIssue[] = [];
  await assert.rejects(
    importRecords(store, () => fileSource(path), { onError: "fail", threads: 0, onMalformed: (i) => seen.push(i) }),
    code("IMPORT_REJECTED"),
  );
  assert.deepEqual(
    seen.map((i) => [i.line, i.code]),
    [
      [3, "BAD_RECORD"],
      [4, "NAME_EXISTS"],
      [5, "BAD_NAME"],
      [6, "VALUE_TOO_LARGE"],
      [7, "BAD_VALUE"],
    ],
  );
  assert.equal(store.head().batch, 0, "nothing written");
  assert.equal(store.history().length, 1);

  const skipped: ImportIssue[] = [];
  const report = await importRecords(store, () => fileSource(path), {
    onError: "skip",
    threads: 1,
    onMalformed: (i) => skipped.push(i),
  });
  assert.deepEqual(
    skipped.map((i) => [i.line, i.code]).sort((x, y) => (x[0]! as number) - (y[0]! as number)),
    [
      [3, "BAD_RECORD"],
      [4, "NAME_EXISTS"],
      [5, "BAD_NAME"],
      [6, "VALUE_TOO_LARGE"],
      [7, "BAD_VALUE"],
    ],
  );
  assert.equal(report.imported, 3);
  assert.equal(report.malformed, 5);
  assert.deepEqual(
    arr(store.head().root),
    referenceRoot([
      ["a", "https://github.com/a"],
      ["b", null],
      ["e", "ok"],
    ]),
  );

  // names already in the registry are duplicates in a later import, in both modes
  const again = tempFile("again.ndjson", '{"name":"b","value":"new"}\n{"name":"f","value":null}\n');
  await assert.rejects(
    importRecords(store, () => fileSource(again), { threads: 0 }),
    code("IMPORT_REJECTED"),
  );
  const r2 = await importRecords(store, () => fileSource(again), { onError: "skip", threads: 0 });
  assert.equal(r2.imported, 1);
  assert.equal(store.slotOf("f"), 3);
  insertRecord(store, "g", null);
  assert.equal(store.slotOf("g"), 4);
  await store.close();
});

test("an import that does not fit the tree is refused (REGISTRY_FULL) with nothing written", async () => {
  const path = tempFile(
    "five.ndjson",
    ["a", "b", "c", "d", "e"].map((n) => JSON.stringify({ name: n, value: null })).join("\n"),
  );
  const store = RegistryStore.openOrCreate(join(tempDir(), "db"), { depth: 2 });
  await assert.rejects(
    importRecords(store, () => fileSource(path), { threads: 0 }),
    code("REGISTRY_FULL"),
  );
  assert.equal(store.head().batch, 0);
  await store.close();
});

test("the shipped subset is the first 100,000 records of the full dataset, in order (when the full dataset is installed)", {
  skip: npmReposFullPath() === undefined ? "full dataset not installed" : false,
}, () => {
  const a = collect(() => npmReposSource(2000));
  const full = npmReposFullPath()!;
  const b = collect(() => new JsonObjectSource(readInput(full), "full", 2000));
  assert.deepEqual(
    a.records.map((r) => [r[1], r[2]]),
    b.records.map((r) => [r[1], r[2]]),
  );
});

test("rerunning an import leaves records already present with the same value as they are (present), and only those", async () => {
  const lines = [
    '{"name":"a","value":"https://github.com/a"}',
    '{"name":"b","value":null}',
    '{"name":"c","fields":[1,2]}',
  ];
  const first = tempFile("first.ndjson", lines.slice(0, 2).join("\n"));
  const all = tempFile("all.ndjson", lines.join("\n"));
  const store = RegistryStore.openOrCreate(join(tempDir(), "db"), { depth: 8 });
  await importRecords(store, () => fileSource(first), { threads: 0 });
  // the interrupted import committed a and b; the rerun of the whole file adds c at slot 2
  const rerun = await importRecords(store, () => fileSource(all), { threads: 0 });
  assert.equal(rerun.present, 2);
  assert.equal(rerun.imported, 1);
  assert.equal(store.slotOf("c"), 2);
  const reference = RegistryStore.openOrCreate(join(tempDir(), "ref"), { depth: 8 });
  await importRecords(reference, () => fileSource(all), { threads: 0 });
  assert.deepEqual(arr(store.head().root), arr(reference.head().root));
  await reference.close();
  // a finished import rerun writes nothing, not even a history entry
  const batches = store.history().length;
  for (const onError of ["fail", "skip"] as const) {
    const again = await importRecords(store, () => fileSource(all), { threads: 0, onError });
    assert.deepEqual([again.imported, again.present, again.batches], [0, 3, 0]);
  }
  assert.equal(store.history().length, batches);
  // another value under a present name, a deleted name, and an in-input repeat stay NAME_EXISTS
  const conflicts = tempFile(
    "conflicts.ndjson",
    ['{"name":"a","value":"https://github.com/other"}', '{"name":"d","value":null}', '{"name":"d","value":null}'].join(
      "\n",
    ),
  );
  const seen: ImportIssue[] = [];
  await assert.rejects(
    importRecords(store, () => fileSource(conflicts), { threads: 0, onMalformed: (i) => seen.push(i) }),
    code("IMPORT_REJECTED"),
  );
  assert.deepEqual(
    seen.map((i) => [i.line, i.code]),
    [
      [1, "NAME_EXISTS"],
      [3, "NAME_EXISTS"],
    ],
  );
  const skipped: ImportIssue[] = [];
  const r = await importRecords(store, () => fileSource(conflicts), {
    threads: 0,
    onError: "skip",
    batchSize: 1,
    onMalformed: (i) => skipped.push(i),
  });
  assert.deepEqual([r.imported, r.present], [1, 0]);
  assert.deepEqual(
    skipped.map((i) => [i.line, i.code]),
    [
      [1, "NAME_EXISTS"],
      [3, "NAME_EXISTS"],
    ],
  );
  const { deleteRecord } = await import("../../src/registry/operations.js");
  deleteRecord(store, { name: "b" });
  const deleted: ImportIssue[] = [];
  await assert.rejects(
    importRecords(store, () => fileSource(first), { threads: 0, onMalformed: (i) => deleted.push(i) }),
    code("IMPORT_REJECTED"),
  );
  assert.deepEqual(
    deleted.map((i) => [i.line, i.code]),
    [[2, "NAME_EXISTS"]],
  );
  await store.close();
});
