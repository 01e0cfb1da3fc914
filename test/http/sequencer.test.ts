/**
 * Writes in epochs through the sequencer (docs/http.md "How it runs"), over real sockets on
 * 127.0.0.1 and through the sequencer itself: many concurrent writes in one batch with their
 * positions in its change log, several writes to one name in order (one failing alone), an epoch
 * that commits nothing, `Prefer: respond-async` and a restart, `Idempotency-Key` replay and
 * reuse, a full queue, a CLI write meanwhile, and `GET /v1/status`.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { RecordState } from "../../src/registry/store/record-codec.js";
import { Sequencer } from "../../src/registry/sequencer/sequencer.js";
import { InlineEpochWriter, type EpochDone, type EpochJob } from "../../src/registry/sequencer/epoch-writer.js";
import { InternalError } from "../../src/errors.js";
import { formatRoot } from "../../src/registry/root.js";
import { replayBatch } from "../../src/registry/consistency/replay.js";
import { proveBatch } from "../../src/registry/consistency/block-prover.js";
import { readTokenFile } from "../../src/http/auth.js";
import { freshDir, makeRegistry, removeDir, runSsgkr, startServer, TOKEN, tokenFile } from "../web/support.js";

const DEPTH = 16;
let dir: string;
type Json = Record<string, any>;
const enc = encodeURIComponent;
const auth = { authorization: `Bearer ${TOKEN}` };

before(() => {
  dir = freshDir("ssgkr-seq-");
});
after(() => {
  if (dir) removeDir(dir);
});

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === "" ? {} : JSON.parse(text), headers: res.headers };
}

/** The names a batch's change log holds, in order. */
function changeNames(store: NameStore, batch: number): string[] {
  return store.changePart(batch, 0).map((c) => c.name);
}

test("sequencer: 40 concurrent PUTs of distinct names are one batch (an epoch closes at --epoch-max); each answer's position is its place in the change log; the answer says how to prove the new state", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "batch" });
  // the epoch closes when its 40th write arrives (--epoch-max), long before its clock would close it
  const srv = await startServer({
    store,
    token: readTokenFile(tokenFile(dir)),
    rateLimit: 0,
    epochMs: 60_000,
    epochMax: 40,
  });
  try {
    const before = store.head().batch;
    const names = Array.from({ length: 40 }, (_, i) => `pkg-${i}`);
    const answers = await Promise.all(
      names.map((n) => call(srv.base, "PUT", `/v1/records/${enc(n)}`, { value: `v-${n}` })),
    );
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.json));
    const batches = new Set(answers.map((a) => a.json.batch));
    assert.deepEqual([...batches], [before + 1], "one epoch, one batch");
    assert.deepEqual(
      answers.map((a) => a.json.position).sort((x, y) => x - y),
      names.map((_, i) => i),
    );
    const log = changeNames(store, before + 1);
    answers.forEach((a, i) => {
      assert.equal(a.json.status, "committed");
      assert.equal(a.json.op, "insert");
      assert.equal(log[a.json.position], names[i], "the change at the answer's position is its write");
      assert.equal(a.json.root, formatRoot(store.head().root));
      assert.equal(a.json.proof, `/v1/records/${enc(names[i]!)}/proof?root=${a.json.root}`);
      assert.equal(a.json.proof_body, undefined);
    });
    const proof = await call(srv.base, "GET", answers[3]!.json.proof);
    assert.equal(proof.status, 200);
    assert.deepEqual(proof.json.statement.value, `v-${names[3]}`);
    assert.equal(store.history().at(-1)!.kind, "epoch");
    const status = await call(srv.base, "GET", "/v1/status");
    assert.equal(status.status, 200);
    assert.equal(status.json.writes.mode, "epochs");
    assert.equal(status.json.writes.epochs_committed, 1);
    assert.equal(status.json.writes.last_epoch.updates, 40);
    assert.equal(status.json.writes.last_epoch.batch, before + 1);
    assert.equal(status.json.writes.writes_queued, 0);
  } finally {
    await srv.app.close();
    await store.close();
  }
});

for (const writer of ["inline", "thread"] as const)
  test(`sequencer (${writer} writer): writes to one name in one epoch apply in order; one that does not fit the state the earlier ones left fails alone; an epoch whose writes all fail commits nothing`, async () => {
    const store = makeRegistry(dir, DEPTH, { sub: `order-${writer}` });
    const seq = new Sequencer(store, { epochMs: 60_000, writer });
    await seq.start();
    try {
      const before = store.head();
      const pending = [
        seq.submit({ op: "put", name: "x", value: "a" }),
        seq.submit({ op: "put", name: "x", value: "b" }),
        seq.submit({ op: "delete", name: "x" }),
        seq.submit({ op: "put", name: "x", value: "c" }),
        seq.submit({ op: "restore", name: "x" }),
        seq.submit({ op: "put", name: "y", value: null }),
      ];
      await seq.runEpoch();
      const got = await Promise.all(pending);
      const results = got.map((a) => (a.kind === "done" ? a.result : assert.fail(a.kind)));
      assert.deepEqual(
        results.map((r) => (r.ok ? [r.op, r.position, r.batch] : [r.code])),
        [
          ["insert", 0, before.batch + 1],
          ["replace", 1, before.batch + 1],
          ["delete", 2, before.batch + 1],
          ["NAME_DELETED"],
          ["restore", 3, before.batch + 1],
          ["insert", 4, before.batch + 1],
        ],
      );
      assert.deepEqual(store.changePart(before.batch + 1, 0), [
        { op: "insert", name: "x", value: "a" },
        { op: "replace", name: "x", value: "b" },
        { op: "delete", name: "x" },
        { op: "restore", name: "x", value: "b" },
        { op: "insert", name: "y", value: null },
      ]);
      const x = store.lookup("x").record!;
      assert.deepEqual([x.state, x.value], [RecordState.Live, "b"]);
      assert.equal(store.head().records, before.records + 2);
      assert.equal(store.head().live, before.live + 2);
      assert.equal(
        store.check().root.join(),
        store.head().root.join(),
        "the tree recomputed from the records has the epoch's root",
      );
      // the epoch replays from its change log (the same name four times) and its block is proved
      const [part] = replayBatch(store, before.batch + 1);
      assert.equal(formatRoot(part!.fromRoot), formatRoot(before.root));
      assert.equal(formatRoot(part!.toRoot), formatRoot(store.head().root));
      assert.equal(proveBatch(store, before.batch + 1)?.summary.batch, before.batch + 1);

      // an epoch of failing writes only, and an epoch of none, commit nothing
      const head = store.head().batch;
      const bad = [seq.submit({ op: "delete", name: "never" }), seq.submit({ op: "restore", name: "x" })];
      await seq.runEpoch();
      await seq.runEpoch();
      assert.deepEqual(
        (await Promise.all(bad)).map((a) => (a.kind === "done" && !a.result.ok ? a.result.code : a.kind)),
        ["RECORD_ABSENT", "RECORD_LIVE"],
      );
      assert.equal(store.head().batch, head);
      assert.equal(seq.status().epochsCommitted, 1);
      assert.equal(seq.status().epochsEmpty, 1);
    } finally {
      await seq.close();
      await store.close();
    }
  });

test("sequencer: writes accepted under Prefer: respond-async are durable before the 202 and applied, in order, by the next start after the process stopped without applying them", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "async" });
  const srv = await startServer({ store, token: readTokenFile(tokenFile(dir)), rateLimit: 0, epochMs: 60_000 });
  const db = store.dir;
  const head = store.head().batch;
  const a1 = await call(srv.base, "PUT", "/v1/records/late-1", { value: "one" }, { prefer: "respond-async" });
  const a2 = await call(srv.base, "PUT", "/v1/records/late-1", { value: "two" }, { prefer: "wait=5, respond-async" });
  const a3 = await call(srv.base, "DELETE", `/v1/records/left-pad`, undefined, { prefer: "respond-async" });
  for (const a of [a1, a2, a3]) assert.equal(a.status, 202, JSON.stringify(a.json));
  assert.equal(a1.json.status, "accepted");
  assert.equal(a1.json.record, "/v1/records/late-1");
  assert.equal(store.head().batch, head, "nothing applied yet");
  // the process stops without applying them: the store is closed under the running server
  store.closeSync();
  const again = NameStore.open(db);
  try {
    const seq = new Sequencer(again, { epochMs: 60_000 });
    await seq.start();
    assert.equal(again.head().batch, head + 1, "one epoch applied the three accepted writes");
    assert.deepEqual(again.changePart(head + 1, 0), [
      { op: "insert", name: "late-1", value: "one" },
      { op: "replace", name: "late-1", value: "two" },
      { op: "delete", name: "left-pad" },
    ]);
    await seq.close();
    const seq2 = new Sequencer(again, { epochMs: 60_000 });
    await seq2.start();
    assert.equal(again.head().batch, head + 1, "an applied accepted write is applied once");
    await seq2.close();
  } finally {
    await again.close();
    await srv.app.close().catch(() => {});
  }
});

test("sequencer: Idempotency-Key replays the first answer once applied, refuses reuse by another write (422), and is validated (400)", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "idem" });
  const srv = await startServer({ store, token: readTokenFile(tokenFile(dir)), rateLimit: 0, epochMs: 50 });
  try {
    const key = { "idempotency-key": "order-17" };
    const first = await call(srv.base, "PUT", "/v1/records/idem", { value: "v" }, key);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const head = store.head().batch;
    const retry = await call(srv.base, "PUT", "/v1/records/idem", { value: "v" }, key);
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.json, first.json);
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.equal(store.head().batch, head, "the retry applied nothing");
    // retries while the first is still queued share its answer
    const [c1, c2] = await Promise.all([
      call(srv.base, "PUT", "/v1/records/idem-2", { value: "w" }, { "idempotency-key": "k2" }),
      call(srv.base, "PUT", "/v1/records/idem-2", { value: "w" }, { "idempotency-key": "k2" }),
    ]);
    assert.deepEqual([c1.status, c2.status], [200, 200]);
    assert.deepEqual(c1.json, c2.json);
    assert.equal(store.changePart(c1.json.batch, 0).filter((c) => c.name === "idem-2").length, 1);
    // a failed write's error is its first answer too
    const f1 = await call(srv.base, "DELETE", "/v1/records/nobody", undefined, { "idempotency-key": "k3" });
    const f2 = await call(srv.base, "DELETE", "/v1/records/nobody", undefined, { "idempotency-key": "k3" });
    assert.deepEqual([f1.status, f1.json.code, f2.status, f2.json.code], [409, "RECORD_ABSENT", 409, "RECORD_ABSENT"]);
    const reused = await call(srv.base, "PUT", "/v1/records/idem", { value: "other" }, key);
    assert.deepEqual([reused.status, reused.json.code], [422, "IDEMPOTENCY_KEY_REUSED"]);
    const reusedName = await call(srv.base, "DELETE", "/v1/records/idem", undefined, key);
    assert.deepEqual([reusedName.status, reusedName.json.code], [422, "IDEMPOTENCY_KEY_REUSED"]);
    for (const bad of ["", "x".repeat(129), "has space", "ünï"]) {
      const r = await fetch(`${srv.base}/v1/records/idem`, {
        method: "PUT",
        headers: {
          ...auth,
          "content-type": "application/json",
          "idempotency-key": Buffer.from(bad, "utf8").toString("latin1"),
        },
        body: JSON.stringify({ value: "v" }),
      });
      const j = (await r.json()) as Json;
      assert.deepEqual([r.status, j.code], [400, "BAD_IDEMPOTENCY_KEY"], JSON.stringify(bad));
    }
  } finally {
    await srv.app.close();
    await store.close();
  }
});

test("sequencer: a full write queue answers 503 WRITE_QUEUE_FULL with Retry-After; the queued writes still commit", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "full" });
  const srv = await startServer({
    store,
    token: readTokenFile(tokenFile(dir)),
    rateLimit: 0,
    epochMs: 60_000,
    writeQueue: 3,
  });
  try {
    const queued = [1, 2, 3].map((i) => call(srv.base, "PUT", `/v1/records/q-${i}`, { value: "v" }));
    while (srv.sequencer!.status().writesQueued < 3) await new Promise((r) => setTimeout(r, 10));
    const full = await call(srv.base, "PUT", "/v1/records/q-4", { value: "v" });
    assert.deepEqual([full.status, full.json.code], [503, "WRITE_QUEUE_FULL"], JSON.stringify(full.json));
    assert.equal(full.headers.get("retry-after"), "60");
    const fullAsync = await call(srv.base, "PUT", "/v1/records/q-4", { value: "v" }, { prefer: "respond-async" });
    assert.equal(fullAsync.status, 503);
    assert.equal(srv.sequencer!.status().writesQueued, 3, "a refused write holds no memory");
    await srv.sequencer!.runEpoch();
    const done = await Promise.all(queued);
    assert.deepEqual(
      done.map((d) => d.status),
      [200, 200, 200],
    );
  } finally {
    await srv.app.close();
    await store.close();
  }
});

test("sequencer: a CLI write while the server runs is seen by the next epoch, never a conflict for the server's writes to other names", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "cli" });
  const srv = await startServer({ store, token: readTokenFile(tokenFile(dir)), rateLimit: 0, epochMs: 100 });
  try {
    const http = (i: number) => call(srv.base, "PUT", `/v1/records/h-${i}`, { value: `h${i}` });
    const cli = (i: number) =>
      runSsgkr(dir, "registry", "insert", "--db", store.dir, "--name", `c-${i}`, "--value", `c${i}`);
    const results = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => http(i)),
      cli(0),
      cli(1),
      ...Array.from({ length: 8 }, (_, i) => http(8 + i)),
    ]);
    const answers = results.filter((r): r is Awaited<ReturnType<typeof http>> => "json" in r);
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.json));
    for (const r of results) if ("stdout" in r) assert.equal(r.status, 0, r.stderr);
    // one more epoch after the CLI commits: planned against the head the CLI left
    const last = await http(99);
    assert.equal(last.status, 200);
    for (const n of ["c-0", "c-1", "h-0", "h-15", "h-99"])
      assert.equal(store.lookup(n).record?.state, RecordState.Live, n);
    assert.equal(store.check().root.join(), store.head().root.join());
  } finally {
    await srv.app.close();
    await store.close();
  }
});

test("registry http: --epoch-ms, --epoch-max and --write-queue are in --help and each is validated (exit 2, BAD_OPTION naming it)", async () => {
  const help = await runSsgkr(dir, "registry", "http", "--help");
  assert.equal(help.status, 0);
  for (const o of ["--epoch-ms", "--epoch-max", "--write-queue"]) assert.ok(help.stdout.includes(o), o);
  const store = makeRegistry(dir, DEPTH, { sub: "options" });
  const db = store.dir;
  await store.close();
  for (const [option, value, range] of [
    ["--epoch-ms", "0", "[1, 60000]"],
    ["--epoch-max", "65537", "[1, 65536]"],
    ["--write-queue", "lots", "[1, 10000000]"],
  ] as const) {
    const r = await runSsgkr(dir, "registry", "http", "--db", db, "--listen", "127.0.0.1:0", option, value);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `error BAD_OPTION: ${option} must be an integer in ${range}, got "${value}"\n`);
  }
});

test("sequencer: a CLI import into the served registry meanwhile commits beside the epochs (each batch planned in its transaction), and every write of both is in the registry", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "import" });
  const srv = await startServer({ store, token: readTokenFile(tokenFile(dir)), rateLimit: 0, epochMs: 20 });
  try {
    const file = join(dir, "import.ndjson");
    writeFileSync(
      file,
      Array.from({ length: 300 }, (_, i) => JSON.stringify({ name: `imp-${i}`, value: `i${i}` })).join("\n"),
    );
    const puts = async () => {
      const out = [];
      for (let i = 0; i < 40; i++) out.push(await call(srv.base, "PUT", `/v1/records/w-${i}`, { value: `w${i}` }));
      return out;
    };
    const [answers, imp] = await Promise.all([
      puts(),
      runSsgkr(
        dir,
        "registry",
        "import",
        "--db",
        store.dir,
        "--file",
        file,
        "--batch-size",
        "50",
        "--on-error",
        "skip",
      ),
    ]);
    assert.equal(imp.status, 0, imp.stderr);
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.json));
    for (const n of ["imp-0", "imp-299", "w-0", "w-39"])
      assert.equal(store.lookup(n).record?.state, RecordState.Live, n);
    assert.equal(store.check().root.join(), store.head().root.join());
  } finally {
    await srv.app.close();
    await store.close();
  }
});

test("sequencer: idempotency keys are kept within their retention (here the last 3 keys), oldest dropped first", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "keys" });
  const seq = new Sequencer(store, { epochMs: 60_000, keyRetention: { keepMs: 3_600_000, keepKeys: 3 } });
  await seq.start();
  try {
    const first = [1, 2, 3, 4, 5].map((i) =>
      seq.submit({ op: "put", name: `kept-${i}`, value: "v", idempotencyKey: `key-${i}` }),
    );
    await seq.runEpoch();
    await Promise.all(first);
    assert.equal(seq.status().idempotencyKeys, 3);
    // key-5 is kept: its retry with another write is refused; key-1 was dropped: the key is free again
    assert.equal(
      (await seq.submit({ op: "put", name: "other", value: "v", idempotencyKey: "key-5" })).kind,
      "key-reused",
    );
    const reused = seq.submit({ op: "put", name: "other", value: "v", idempotencyKey: "key-1" });
    await seq.runEpoch();
    const a = await reused;
    assert.deepEqual([a.kind, a.kind === "done" && a.result.ok], ["done", true]);
    assert.equal(seq.status().idempotencyKeys, 3);
  } finally {
    await seq.close();
    await store.close();
  }
});

test("sequencer: an epoch whose answer is lost after its commit (a writer that died between its commit and its answer) — accepted writes are applied exactly once, a write answered ok is in the registry, an idempotency key answers its stored result", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "answer-lost" });
  let lose = 0;
  class LosingWriter extends InlineEpochWriter {
    override async epoch(job: EpochJob): Promise<EpochDone> {
      const done = await super.epoch(job);
      if (lose-- > 0) throw new InternalError("the epoch writer thread stopped");
      return done;
    }
  }
  const seq = new Sequencer(store, { epochMs: 60_000, writer: (s, t) => new LosingWriter(s, t) });
  await seq.start();
  const start = store.head().batch;
  try {
    for (let round = 0; round < 4; round++) {
      const accepted = [1, 2, 3].map((i) => ({ op: "put" as const, name: `acc-${round}-${i}`, value: `a${i}` }));
      for (const w of accepted) assert.equal((await seq.accept(w)).kind, "accepted");
      const keyed = seq.submit({ op: "put", name: `key-${round}`, value: "k", idempotencyKey: `k-${round}` });
      const plain = seq.submit({ op: "put", name: `plain-${round}`, value: "p" });
      lose = round % 2 === 0 ? 1 : 0;
      assert.equal(await seq.runEpoch(), round % 2 !== 0, "the epoch's answer was lost on even rounds");
      while (seq.status().writesQueued > 0) await seq.runEpoch();
      const k = await keyed;
      assert.ok(k.kind === "done" && k.result.ok, `the keyed write answers its kept result: ${JSON.stringify(k)}`);
      const p = await plain;
      assert.equal(p.kind, "done");
      if (p.kind === "done" && !p.result.ok) assert.equal(p.result.code, "INTERNAL");
      assert.equal(store.lookup(`plain-${round}`).record?.value, "p", "the epoch committed");
    }
    const inserts = new Map<string, number>();
    for (let b = start + 1; b <= store.head().batch; b++)
      for (const c of store.changePart(b, 0))
        if (c.name.startsWith("acc-")) inserts.set(c.name, (inserts.get(c.name) ?? 0) + (c.op === "insert" ? 1 : 100));
    assert.equal(inserts.size, 12, "every accepted write was applied");
    assert.ok(
      [...inserts.values()].every((n) => n === 1),
      JSON.stringify([...inserts]),
    );
    assert.equal(store.head().batch, start + 4, "one batch per epoch, none applied twice");
    assert.equal(store.check().root.join(), store.head().root.join());
  } finally {
    await seq.close();
    await store.close();
  }
});

test("sequencer (thread writer): a writer thread that stopped is replaced by the next job", async () => {
  const store = makeRegistry(dir, DEPTH, { sub: "writer-stopped" });
  const seq = new Sequencer(store, { epochMs: 60_000, writer: "thread" });
  await seq.start();
  try {
    for (let round = 0; round < 2; round++) {
      const worker = (seq.writer as unknown as { worker?: { terminate(): Promise<number> } }).worker;
      assert.ok(worker !== undefined, "a thread runs");
      await worker.terminate();
      assert.equal((await seq.accept({ op: "put", name: `after-${round}`, value: "v" })).kind, "accepted");
      assert.equal(await seq.runEpoch(), true);
      assert.equal(store.lookup(`after-${round}`).record?.value, "v");
    }
  } finally {
    await seq.close();
    await store.close();
  }
});
