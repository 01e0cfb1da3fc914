/**
 * The registry's proof jobs end to end on 127.0.0.1 (docs/scale-out.md "Registry proof jobs"): a
 * real nats-server with JetStream, a primary `ssgkr registry http --nats` (no proving threads)
 * and two `ssgkr registry worker` processes, each with its own verified copy. Checked: read
 * proofs of every profile are proved by the workers and verify on the primary; the blocks of the
 * primary's batches, and of an epoch of writes, are proved by the workers and verify; a proof's
 * own error (an unknown root) comes back with its code; a malformed and an over-bound job are
 * terminated with one refusal result each; a worker killed mid-job has its job proved by another.
 * Skipped when nats-server is not installed (`.ci/run` installs it).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "nats";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { makeRegistry } from "../web/support.js";
import { bin, haveNatsServer, runCli, startBroker, tempDir, cleanup, type Broker } from "../serve/support/nats.js";

const skip = haveNatsServer() ? false : "nats-server is not installed";
const SLOW_WORKER = join(bin, "..", "..", "dist", "test", "proof-jobs", "support", "slow-worker.js");
const TOKEN = "0123456789abcdef0123456789abcdef";

interface Proc {
  readonly child: ChildProcess;
  out(): string;
  err(): string;
  readonly exited: Promise<number | null>;
}
const procs: Proc[] = [];

function start(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const p = {
    child,
    out: () => out,
    err: () => err,
    exited: new Promise<number | null>((r) => child.on("exit", (code) => r(code))),
  };
  procs.push(p);
  return p;
}

async function until<T>(what: string, ms: number, f: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let dir: string;
let broker: Broker;
let verifierKey: string;
let primary: Proc;
let base: string;
const workers: Record<string, Proc> = {};

async function startWorker(hostId: string): Promise<Proc> {
  const w = start([
    bin,
    "registry",
    "worker",
    "--nats",
    broker.url,
    "--from",
    base,
    "--key",
    verifierKey,
    "--db",
    join(dir, `copy-${hostId}`),
    "--host-id",
    hostId,
    "--follow-ms",
    "500",
    "--pull-expires-ms",
    "500",
  ]);
  await until(`worker ${hostId} ready`, 120_000, () => {
    if (w.child.exitCode !== null) throw new Error(`worker ${hostId} exited: ${w.err()}`);
    return w.out().includes('"status":"REGISTRY_WORKER_READY"') ? true : undefined;
  });
  workers[hostId] = w;
  return w;
}

/** Stops a worker with SIGTERM; its REGISTRY_WORKER_STOPPED line. */
async function stopWorker(
  hostId: string,
): Promise<{ stats: { proved: { read: number; block: number }; redelivered: number; refused: number } }> {
  const w = workers[hostId]!;
  w.child.kill("SIGTERM");
  assert.equal(await w.exited, 0, w.err());
  const line = w
    .out()
    .split("\n")
    .find((l) => l.includes('"REGISTRY_WORKER_STOPPED"'));
  assert.ok(line, w.out());
  return JSON.parse(line) as never;
}

async function get(path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${base}${path}`);
  return { status: r.status, body: await r.json() };
}

async function verified(body: unknown): Promise<any> {
  const r = await fetch(`${base}/v1/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 200);
  return r.json();
}

before(async () => {
  if (skip) return;
  dir = tempDir("ssgkr-proof-jobs-");
  const store = makeRegistry(dir, 16);
  for (let i = 0; i < 4; i++) planNameUpdate(store, "insert", `pkg-${i}`, `https://example.com/${i}`).commit();
  await store.close();
  const keygen = await runCli([
    "registry",
    "keygen",
    "--out",
    join(dir, "registry.key"),
    "--origin",
    "example.com/jobs",
  ]);
  assert.equal(keygen.code, 0, keygen.stderr);
  verifierKey = keygen.stdout.trim();
  writeFileSync(join(dir, "token.txt"), `${TOKEN}\n`);
  broker = await startBroker();
  const setup = await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "3000"]);
  assert.equal(setup.code, 0, setup.stderr);
  assert.match(setup.stdout, /"SSGKR_REGISTRY_JOBS":"created".*"ssgkr-registry-block":"created"/);
  primary = start([
    bin,
    "registry",
    "http",
    "--db",
    join(dir, "db"),
    "--listen",
    "127.0.0.1:0",
    "--token-file",
    join(dir, "token.txt"),
    "--signing-key",
    join(dir, "registry.key"),
    "--rate-limit",
    "0",
    "--epoch-ms",
    "300",
    "--nats",
    broker.url,
    "--web",
    join(dir, "no-page"),
  ]);
  base = await until("primary listening", 120_000, () => {
    if (primary.child.exitCode !== null) throw new Error(`primary exited: ${primary.err()}`);
    return /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(primary.out())?.[1];
  });
  assert.match(primary.err(), /proving pool: jobs on the broker/);
  await Promise.all([startWorker("w1"), startWorker("w2")]);
});

after(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  cleanup();
});

test("read proofs of every profile, and an absence, are proved by the workers and verify on the primary", {
  skip,
  timeout: 300_000,
}, async () => {
  for (const [name, query] of [
    ["left-pad", ""],
    ["left-pad", "?profile=v3"],
    ["@scope/pkg", "?zk=1"],
    ["nobody-here", "?profile=v3"],
  ] as const) {
    const r = await get(`/v1/records/${encodeURIComponent(name)}/proof${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = await verified(r.body);
    assert.equal(v.ok, true, `${name}${query}: ${JSON.stringify(v)}`);
  }
  const s = await get("/v1/status");
  assert.ok(s.body.pool.done.read >= 4, JSON.stringify(s.body.pool));
  assert.ok(s.body.pool.workers >= 1, JSON.stringify(s.body.pool));
});

test("the primary's batches and an epoch of writes are proved in blocks by the workers, and verify", {
  skip,
  timeout: 300_000,
}, async () => {
  const writes = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      fetch(`${base}/v1/records/new-${i}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ value: `https://example.org/${i}` }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { batch: number } })),
    ),
  );
  for (const w of writes) assert.equal(w.status, 200, JSON.stringify(w.body));
  const batches = [...new Set(writes.map((w) => w.body.batch))];
  const head = Math.max(...batches);
  for (let b = 1; b <= head; b++) {
    const block = await until(`block of batch ${b}`, 180_000, async () => {
      const r = await get(`/v1/blocks/${b}`);
      return r.status === 200 ? r.body : undefined;
    });
    const v = await verified(block);
    assert.equal(v.ok, true, `batch ${b}: ${JSON.stringify(v)}`);
  }
  // a proof at the new head: the workers' copies follow past the blocks
  const r = await get(`/v1/records/new-3/proof?profile=v3`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal((await verified(r.body)).ok, true);
  const s = await get("/v1/status");
  assert.ok(s.body.pool.done.block >= head, JSON.stringify(s.body.pool));
});

test("a proof's own error comes back with its code: a root the registry never had is 404 ROOT_UNKNOWN", {
  skip,
  timeout: 120_000,
}, async () => {
  const r = await get(`/v1/records/left-pad/proof?profile=v3&root=${"12".repeat(32)}`);
  assert.equal(r.status, 404, JSON.stringify(r.body));
  assert.equal(r.body.code, "ROOT_UNKNOWN");
});

test("a malformed and an over-bound job are terminated once, each with one refusal result", {
  skip,
  timeout: 120_000,
}, async () => {
  const nc = await connect({ servers: broker.url });
  try {
    const js = nc.jetstream();
    await js.publish(
      "ssgkr.registry.jobs.read",
      Buffer.from('{"v":1,"id":"t-bad","reply":"tester","kind":"read","name":"x"}'),
      {
        msgID: "t-bad",
      },
    );
    await js.publish(
      "ssgkr.registry.jobs.read",
      Buffer.from(
        JSON.stringify({
          v: 1,
          id: "t-big",
          reply: "tester",
          kind: "read",
          name: "n".repeat(2000),
          root: "00".repeat(32),
          profile: "v3",
        }),
      ),
      { msgID: "t-big" },
    );
    const jsm = await nc.jetstreamManager();
    const results = await until("two refusal results", 60_000, async () => {
      const info = await jsm.streams.info("SSGKR_REGISTRY_RESULTS", {
        subjects_filter: "ssgkr.registry.results.tester",
      });
      const n = (info.state.subjects as Record<string, number> | undefined)?.["ssgkr.registry.results.tester"] ?? 0;
      return n >= 2 ? n : undefined;
    });
    assert.equal(results, 2);
    const c = await js.consumers.get("SSGKR_REGISTRY_RESULTS", { filterSubjects: "ssgkr.registry.results.tester" });
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const m = await c.next({ expires: 5000 });
      assert.ok(m);
      const data = Buffer.from(m.data);
      const json = JSON.parse(data.subarray(4, 4 + data.readUInt32BE(0)).toString()) as {
        id: string;
        ok: boolean;
        code: string;
        message: string;
      };
      assert.equal(json.ok, false);
      assert.equal(json.code, "PROOF_JOB_REFUSED");
      seen.push(`${json.id}:${json.message.split(":")[0]}`);
      assert.equal(m.headers?.get("Ssgkr-Job"), json.id);
    }
    assert.deepEqual(seen.sort(), ["t-bad:job_malformed", "t-big:job_over_bound"]);
    const jobs = await jsm.streams.info("SSGKR_REGISTRY_JOBS");
    assert.equal(jobs.state.messages, 0, "the refused jobs left the work queue");
  } finally {
    await nc.close();
  }
});

test("a worker killed mid-job: its job is redelivered and proved by another worker", {
  skip,
  timeout: 300_000,
}, async () => {
  const before = [await stopWorker("w1"), await stopWorker("w2")];
  const proved = before.reduce(
    (a, s) => ({ read: a.read + s.stats.proved.read, block: a.block + s.stats.proved.block }),
    { read: 0, block: 0 },
  );
  assert.ok(proved.read >= 5 && proved.block >= 1, JSON.stringify(proved));
  assert.ok(
    before.every((s) => s.stats.proved.read + s.stats.proved.block > 0),
    "both workers proved jobs",
  );
  const slow = start([SLOW_WORKER, broker.url, base, verifierKey, join(dir, "copy-w1"), "slow"], {
    SSGKR_TEST_SLOW_WORKER: "1",
  });
  await until("slow worker ready", 120_000, () => {
    if (slow.child.exitCode !== null) throw new Error(`slow worker exited: ${slow.err()}`);
    return slow.out().includes("READY") ? true : undefined;
  });
  const answer = get(`/v1/records/pkg-2/proof?zk=1`);
  await until("the slow worker took the job", 60_000, () => (slow.out().includes("JOB ") ? true : undefined));
  slow.child.kill("SIGKILL");
  await slow.exited;
  await startWorker("w2");
  const r = await answer;
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal((await verified(r.body)).ok, true);
  const after = await stopWorker("w2");
  assert.ok(after.stats.redelivered >= 1, JSON.stringify(after.stats));
  assert.ok(after.stats.proved.read >= 1, JSON.stringify(after.stats));
});

test("with the broker gone, SIGTERM still stops a worker and the primary within seconds (exit 0)", {
  skip,
  timeout: 300_000,
}, async () => {
  const w = await startWorker("w3");
  assert.equal((await get("/v1/status")).body.pool.broker.connected, true);
  broker.child.kill("SIGKILL");
  await new Promise((r) => broker.child.once("exit", r));
  // the loss shows in the primary's status and in both logs
  await until("the primary's status shows the broker lost", 30_000, async () =>
    (await get("/v1/status")).body.pool.broker.connected === false ? true : undefined,
  );
  await until("both logs say the broker was lost", 30_000, () =>
    /proof jobs: disconnected from /.test(primary.err()) && /broker: disconnected from /.test(w.err())
      ? true
      : undefined,
  );
  const t0 = Date.now();
  w.child.kill("SIGTERM");
  primary.child.kill("SIGTERM");
  const [wCode, pCode] = await Promise.all([w.exited, primary.exited]);
  const seconds = (Date.now() - t0) / 1000;
  assert.equal(wCode, 0, w.err());
  assert.equal(pCode, 0, primary.err());
  assert.ok(seconds < 60, `stopped in ${seconds} s`);
  assert.match(primary.err(), /\nstopped\n/);
  const line = w
    .out()
    .split("\n")
    .find((l) => l.includes('"REGISTRY_WORKER_STOPPED"'));
  assert.ok(line, w.out());
  // the stop line gives the size of the copy as it stopped (the copy follows the primary after its ready line)
  const copy = NameStore.open(join(dir, "copy-w3"), { readOnly: true });
  try {
    assert.equal((JSON.parse(line) as { size: number }).size, copy.head().batch);
  } finally {
    await copy.close();
  }
});
