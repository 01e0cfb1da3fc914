/**
 * Differential tests of the name-keyed bulk import (name-bulk.ts) against the batched path
 * (`importNames` with `bulk: false`) and the plain recursive reference: same rows, root, requests
 * and proofs, on random and edge inputs, and after later updates.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { compressReference, type Digest } from "../../src/hash/digest.js";
import { hashLeaf, TOMBSTONE } from "../../src/smt/leaf.js";
import { RegistryError } from "../../src/registry/errors.js";
import { recordLeaf, type RecordValue } from "../../src/registry/mapping.js";
import { nameKey } from "../../src/registry/name-key.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { importNames, type NameImportOptions } from "../../src/registry/import/name-import.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { nameReadRequest, proveNameStatement } from "../../src/registry/name-prove.js";
import { referenceCompact } from "../../src/registry/hashing/name-tree.js";
import { sortByKey } from "../../src/registry/import/name-bulk.js";
import { RecordState } from "../../src/registry/store/record-codec.js";
import { fileSource } from "../../src/registry/import/dataset.js";
import { tempDir, tempFile } from "./support/tmp.js";

const arr = (d: ArrayLike<number>) => Array.from(d);
const code = (c: string) => (e: unknown) => e instanceof RegistryError && e.code === c;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Entry {
  readonly name: string;
  readonly value: RecordValue;
}

function ndjson(entries: readonly Entry[]): string {
  return tempFile(
    "in.ndjson",
    entries
      .map((e) =>
        JSON.stringify(
          e.value !== null && typeof e.value === "object"
            ? { name: e.name, fields: e.value.fields }
            : { name: e.name, value: e.value },
        ),
      )
      .join("\n") + (entries.length > 0 ? "\n" : ""),
  );
}

/** Every row of a store (leaves with records and digests, branches), read from one snapshot. */
function rows(store: NameStore): { leaves: unknown[]; branches: unknown[] } {
  return store.read((txn) => ({
    leaves: [...store.leafRows(txn)].map((r) => [
      r.key,
      r.record.state,
      r.record.name,
      JSON.stringify(r.record.value),
      arr(r.digest),
    ]),
    branches: [...store.branchRows(txn)].map((b) => [b.h, b.p, arr(b.digest)]),
  }));
}

/** The root of the first occurrence of each key in the input, from the plain reference. */
function referenceRoot(store: NameStore, entries: readonly Entry[]): Digest {
  const { depth, leafMaxFields: B } = store.config;
  const byKey = new Map<number, Digest>();
  for (const e of entries) {
    const k = nameKey(e.name, depth);
    if (!byKey.has(k)) byKey.set(k, hashLeaf(recordLeaf(e.name, e.value, B), B));
  }
  const keys = [...byKey.keys()].sort((a, b) => a - b);
  return referenceCompact(
    depth,
    store.defaults,
    compressReference,
    keys,
    keys.map((k) => byKey.get(k)!),
  ).root;
}

/** Imports the entries with the bulk path and the batched path; checks both against each other and the reference. */
async function both(
  entries: readonly Entry[],
  depth: number,
  bulk: NameImportOptions = {},
  batchSize = 37,
): Promise<{ a: NameStore; b: NameStore; issuesA: string[]; issuesB: string[] }> {
  const file = ndjson(entries);
  const a = NameStore.openOrCreate(join(tempDir(), "bulk"), { depth });
  const b = NameStore.openOrCreate(join(tempDir(), "batched"), { depth });
  const issuesA: string[] = [];
  const issuesB: string[] = [];
  const ra = await importNames(a, () => fileSource(file), {
    threads: 0,
    onError: "skip",
    onMalformed: (i) => issuesA.push(`${i.line}:${i.code}`),
    ...bulk,
  });
  const rb = await importNames(b, () => fileSource(file), {
    threads: 0,
    onError: "skip",
    bulk: false,
    batchSize,
    onMalformed: (i) => issuesB.push(`${i.line}:${i.code}`),
  });
  assert.equal(ra.batches, entries.length === 0 ? 0 : 1, "the bulk path commits one batch");
  assert.equal(ra.imported, rb.imported);
  assert.equal(ra.malformed, rb.malformed);
  assert.deepEqual(issuesA.sort(), issuesB.sort(), "the same records are left out, with the same codes");
  assert.deepEqual(arr(ra.root), arr(rb.root), "same root");
  assert.deepEqual(arr(ra.root), arr(referenceRoot(a, entries)), "the reference root");
  assert.deepEqual(rows(a), rows(b), "same leaf and branch rows");
  const ha = a.head();
  const hb = b.head();
  assert.deepEqual([ha.records, ha.live, ha.deleted], [hb.records, hb.live, hb.deleted]);
  assert.deepEqual(arr(a.check().root), arr(ra.root), "check() recomputes the root");
  return { a, b, issuesA, issuesB };
}

function sameRequests(a: NameStore, b: NameStore, names: readonly string[]): void {
  for (const name of names) {
    const la = a.lookup(name);
    if (la.other !== undefined) continue; // a key held by another name: no statement about this name
    const kind = la.record !== undefined && la.record.state !== RecordState.Deleted ? "membership" : "nonmembership";
    const qa = nameReadRequest(a, kind, name);
    const qb = nameReadRequest(b, kind, name);
    assert.deepEqual(
      JSON.parse(
        JSON.stringify(qa, (_k, v) => (v instanceof Uint32Array ? arr(v) : typeof v === "bigint" ? String(v) : v)),
      ),
      JSON.parse(
        JSON.stringify(qb, (_k, v) => (v instanceof Uint32Array ? arr(v) : typeof v === "bigint" ? String(v) : v)),
      ),
      `request for ${name}`,
    );
  }
}

test("radix sort by key: stable, keys up to 2^48 − 1", () => {
  const rand = rng(7);
  const keys = Float64Array.from({ length: 5000 }, () =>
    rand() < 0.1 ? 2 ** 48 - 1 - Math.floor(rand() * 4) : Math.floor(rand() * 2 ** 48),
  );
  keys[17] = keys[3]!;
  keys[400] = keys[3]!;
  const order = sortByKey(keys);
  const expected = Array.from(keys.keys()).sort((x, y) => keys[x]! - keys[y]! || x - y);
  assert.deepEqual(Array.from(order), expected);
  assert.deepEqual(Array.from(sortByKey(new Float64Array(0))), []);
});

test("bulk import = batched import: empty input and one record", async () => {
  const empty = await both([], 48);
  assert.equal(empty.a.head().records, 0);
  assert.deepEqual(arr(empty.a.head().root), arr(empty.a.defaults[48]!));
  const one = await both([{ name: "only", value: "https://github.com/o/only" }], 48);
  sameRequests(one.a, one.b, ["only", "absent"]);
  for (const s of [empty, one]) {
    await s.a.close();
    await s.b.close();
  }
});

test("bulk import = batched import: random names at depth 48, in one partition and in many, with one or two workers", async () => {
  const rand = rng(11);
  const entries: Entry[] = Array.from({ length: 1500 }, (_, i) => ({
    name: `pkg-${i}-${Math.floor(rand() * 1e6)}`,
    value: i % 5 === 0 ? null : i % 11 === 0 ? { fields: [i, 7] } : `https://github.com/o/r${i}`,
  }));
  const single = await both(entries, 48);
  const many = await both(entries, 48, { partitionRecords: 40 });
  const threaded = await both(entries, 48, { partitionRecords: 100, threads: 2, batchSize: 200 });
  assert.deepEqual(arr(single.a.head().root), arr(many.a.head().root));
  assert.deepEqual(arr(single.a.head().root), arr(threaded.a.head().root));
  sameRequests(many.a, many.b, [...entries.slice(0, 30).map((e) => e.name), "never-registered", "x"]);
  for (const s of [single, many, threaded]) {
    await s.a.close();
    await s.b.close();
  }
});

test("bulk import = batched import: shared key prefixes, key collisions and duplicate names at small depths", async () => {
  for (const depth of [1, 2, 6, 10]) {
    const rand = rng(depth);
    const names = Array.from({ length: 300 }, (_, i) => `n${i}`);
    const entries: Entry[] = [];
    for (let i = 0; i < 400; i++)
      entries.push({ name: names[Math.floor(rand() * names.length)]!, value: `https://gitlab.com/o/${i}` });
    const s = await both(entries, depth, { partitionRecords: 8 }, 13);
    assert.ok(
      s.issuesA.some((i) => i.endsWith("NAME_EXISTS")),
      `depth ${depth}: duplicate names are reported`,
    );
    if (depth <= 6)
      assert.ok(
        s.issuesA.some((i) => i.endsWith("KEY_COLLISION")),
        `depth ${depth}: collisions are reported`,
      );
    assert.ok(s.a.head().records <= 2 ** depth);
    sameRequests(s.a, s.b, names.slice(0, 40));
    await s.a.close();
    await s.b.close();
  }
});

test("after a bulk import, updates (insert, replace, delete, restore) give the roots and proofs of the batched registry", async () => {
  const rand = rng(5);
  const entries: Entry[] = Array.from({ length: 400 }, (_, i) => ({
    name: `p${i}`,
    value: rand() < 0.3 ? null : `https://github.com/o/p${i}`,
  }));
  const { a, b } = await both(entries, 12, { partitionRecords: 16 });
  const script: ["insert" | "replace" | "delete" | "restore", string, RecordValue | undefined][] = [];
  for (let i = 0; i < 60; i++) {
    const e = entries[Math.floor(rand() * entries.length)]!;
    script.push(["delete", e.name, undefined]);
  }
  script.push(
    ["replace", "p3", "https://bitbucket.org/x/y"],
    ["insert", "brand-new", null],
    ["restore", script[0]![1], undefined],
  );
  for (const [kind, name, value] of script) {
    let pa, pb;
    try {
      pa = planNameUpdate(a, kind, name, value);
    } catch (e) {
      assert.throws(
        () => planNameUpdate(b, kind, name, value),
        (f: unknown) => f instanceof RegistryError && f.code === (e as RegistryError).code,
      );
      continue;
    }
    pb = planNameUpdate(b, kind, name, value);
    assert.deepEqual(pa.siblings.map(arr), pb.siblings.map(arr), `${kind} ${name}: same path`);
    assert.deepEqual(arr(pa.commit().root), arr(pb.commit().root), `${kind} ${name}: same root`);
  }
  assert.deepEqual(rows(a), rows(b));
  assert.ok(a.head().deleted > 0);
  const deleted = script[1]![1];
  sameRequests(a, b, [deleted, "p3", "brand-new", "never-there"]);
  // proofs are equal byte for byte
  for (const [st, name] of [
    ["membership", "p3"],
    ["nonmembership", "never-there"],
  ] as const) {
    const x = proveNameStatement(a, st, name);
    const y = proveNameStatement(b, st, name);
    assert.deepEqual(Buffer.from(x.proof), Buffer.from(y.proof), `${st} ${name}: same proof`);
  }
  const d = proveNameStatement(a, "delete", "p5");
  const e = proveNameStatement(b, "delete", "p5");
  assert.deepEqual(Buffer.from(d.proof), Buffer.from(e.proof), "delete p5: same proof");
  assert.deepEqual(arr(a.check().root), arr(b.head().root));
  // the same records from scratch (deletes as Tombstones) with the plain reference
  const { depth, leafMaxFields: B } = a.config;
  const ref = a.read((txn) =>
    [...a.leafRows(txn)].map((r) => ({
      key: r.key,
      digest:
        r.record.state === RecordState.Deleted
          ? hashLeaf(TOMBSTONE, B)
          : hashLeaf(recordLeaf(r.record.name, r.record.value, B), B),
    })),
  );
  assert.deepEqual(
    arr(
      referenceCompact(
        depth,
        a.defaults,
        compressReference,
        ref.map((r) => r.key),
        ref.map((r) => r.digest),
      ).root,
    ),
    arr(a.head().root),
  );
  await a.close();
  await b.close();
});

test("bulk import with onError fail: a duplicate or malformed record rejects the import and nothing is written; a later import takes the batched path", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: 48 });
  const bad = ndjson([
    { name: "a", value: null },
    { name: "b", value: null },
    { name: "a", value: "https://github.com/o/a" },
  ]);
  await assert.rejects(
    importNames(store, () => fileSource(bad), { threads: 0 }),
    (e: unknown) => e instanceof RegistryError && e.code === "IMPORT_REJECTED" && /line 3: NAME_EXISTS/.test(e.message),
  );
  assert.equal(store.head().records, 0);
  assert.equal(store.history().length, 1, "no batch was committed");
  const good = ndjson([
    { name: "a", value: null },
    { name: "b", value: null },
  ]);
  const r = await importNames(store, () => fileSource(good), { threads: 0 });
  assert.equal(r.imported, 2);
  assert.equal(r.batches, 1);
  const more = ndjson([
    { name: "c", value: null },
    { name: "a", value: "https://github.com/o/a" },
  ]);
  await assert.rejects(
    importNames(store, () => fileSource(more), { threads: 0 }),
    code("IMPORT_REJECTED"),
  );
  const r2 = await importNames(store, () => fileSource(ndjson([{ name: "c", value: null }])), { threads: 0 });
  assert.equal(r2.imported, 1);
  assert.deepEqual(
    arr(store.head().root),
    arr(
      referenceRoot(store, [
        { name: "a", value: null },
        { name: "b", value: null },
        { name: "c", value: null },
      ]),
    ),
  );
  await store.close();
});

test("an import rerun after a finished or partial one leaves the stored records (present) and ends at the root of one uninterrupted import", async () => {
  const entries: Entry[] = Array.from({ length: 300 }, (_, i) => ({
    name: `r${i}`,
    value: i % 4 === 0 ? null : `https://github.com/o/r${i}`,
  }));
  const all = ndjson(entries);
  const reference = NameStore.openOrCreate(join(tempDir(), "ref"), { depth: 48 });
  const expected = (await importNames(reference, () => fileSource(all), { threads: 0 })).root;
  const again = await importNames(reference, () => fileSource(all), { threads: 0 });
  assert.equal(again.imported, 0);
  assert.equal(again.present, 300);
  assert.deepEqual(arr(reference.head().root), arr(expected));
  // a bulk import of the first 120 (as if the rest had not been read), then the whole input again
  const partial = NameStore.openOrCreate(join(tempDir(), "partial"), { depth: 48 });
  await importNames(partial, () => fileSource(ndjson(entries.slice(0, 120))), { threads: 0 });
  const rest = await importNames(partial, () => fileSource(all), { threads: 0, batchSize: 50 });
  assert.equal(rest.present, 120);
  assert.equal(rest.imported, 180);
  assert.deepEqual(arr(rest.root), arr(expected));
  assert.deepEqual(rows(partial), rows(reference));
  // another value for a stored name is still a conflict
  const changed = ndjson([{ name: "r1", value: "https://github.com/o/other" }]);
  await assert.rejects(
    importNames(partial, () => fileSource(changed), { threads: 0 }),
    code("IMPORT_REJECTED"),
  );
  await reference.close();
  await partial.close();
});
