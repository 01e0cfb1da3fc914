import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { opKindTag, type OpKindTag } from "../../src/statement/types.js";
import { prepareAll } from "../../src/sync/prepare-all.js";
import { verifyEncoded } from "../../src/sync/encoded.js";
import type { PreparedSync } from "../../src/sync/prepared.js";
import { P } from "../../src/field/koalabear.js";
import {
  encodeFrame,
  encodeJobFrame,
  inputFromRequest,
  jobToJson,
  parseJson,
  ReplyStreamReader,
  requestFromInput,
  sha256Hex,
  type Job,
  type JobInput,
  type ReplyMessage,
} from "../../src/serve/protocol/index.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const DEPTH = 4;
const IO_TIMEOUT_MS = 300;

let child: ChildProcess;
let port = 0;
const stdoutLines: string[] = [];
let prepared: PreparedSync[];

function waitForLine(pred: (l: string) => boolean, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const found = stdoutLines.find(pred);
    if (found) return resolve(found);
    const timer = setTimeout(
      () => reject(new Error(`no matching line within ${ms} ms; got: ${stdoutLines.join("\n")}`)),
      ms,
    );
    const onData = () => {
      const l = stdoutLines.find(pred);
      if (l) {
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        resolve(l);
      }
    };
    child.stdout!.on("data", onData);
  });
}

before(async () => {
  child = spawn(
    process.execPath,
    [
      join("bin", "ssgkr.js"),
      "serve",
      "--listen",
      "127.0.0.1:0",
      "--depth",
      String(DEPTH),
      "--workers",
      "2",
      "--control-samples",
      "1",
      "--batch-max",
      "8",
      "--max-wait-us",
      "2000",
      "--io-timeout-ms",
      String(IO_TIMEOUT_MS),
      "--host-id",
      "test-host",
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let buf = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      stdoutLines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  child.stderr!.resume();
  const all = prepareAll({ depth: DEPTH });
  prepared = [all.membership, all.nonmembership, all.update];
  const ready = await waitForLine((l) => l.includes("SERVER_READY"), 120_000);
  const info = JSON.parse(ready) as { listen: string; status: string; process_id: number };
  assert.equal(info.status, "SERVER_READY");
  port = Number(info.listen.split(":").pop());
  assert.ok(port > 0);
});

after(() => {
  if (child.exitCode === null) child.kill("SIGKILL");
});

function job(input: JobInput, jobId: bigint, fixtureId: number, over: Partial<Job> = {}): Job {
  return {
    protocol: 1,
    run_id: "server-test",
    job_id: jobId,
    fixture_id: fixtureId,
    repeat: 1,
    warmup: false,
    scheduled_unix_ns: 1n,
    deadline_unix_ns: 2n,
    input,
    ...over,
  };
}

interface Client {
  socket: Socket;
  replies: ReplyMessage[];
  closed: Promise<void>;
  waitFor(n: number): Promise<ReplyMessage[]>;
}

function client(): Promise<Client> {
  return new Promise((resolveClient, reject) => {
    const socket = connect(port, "127.0.0.1");
    const reader = new ReplyStreamReader();
    const replies: ReplyMessage[] = [];
    const waiters: (() => void)[] = [];
    let resolveClosed!: () => void;
    const closed = new Promise<void>((r) => {
      resolveClosed = r;
    });
    socket.on("data", (chunk) => {
      reader.push(chunk);
      for (let m = reader.next(); m !== null; m = reader.next()) replies.push(m);
      waiters.forEach((w) => w());
    });
    socket.on("close", () => {
      resolveClosed();
      waiters.forEach((w) => w());
    });
    socket.on("error", () => {});
    socket.once("connect", () =>
      resolveClient({
        socket,
        replies,
        closed,
        waitFor(n) {
          return new Promise((res, rej) => {
            const check = () => {
              if (replies.length >= n) res(replies.slice());
              else if (socket.destroyed || socket.readableEnded)
                rej(new Error(`connection closed after ${replies.length} of ${n} replies`));
              else return false;
              return true;
            };
            if (!check()) waiters.push(() => void check());
          });
        },
      }),
    );
    socket.once("error", reject);
  });
}

test("a few dozen corpus jobs get verified proofs with consistent reply fields", async () => {
  const c = await client();
  const jobs: Job[] = [];
  const big = (1n << 60n) + 12345n;
  for (let i = 0; i < 24; i++) {
    const kind = (i % 3) as OpKindTag;
    const fixture = Math.floor(i / 3);
    jobs.push(job(inputFromRequest(corpusRequest(kind, fixture, { depth: DEPTH })), big + BigInt(i), fixture));
  }
  c.socket.write(Buffer.concat(jobs.map(encodeJobFrame)));
  const replies = await c.waitFor(jobs.length);
  assert.equal(replies.length, 24);
  const seen = new Set<bigint>();
  for (const { reply, proof } of replies) {
    assert.equal(reply.error, null, `job ${reply.job_id}: ${reply.error}`);
    const j = jobs.find((x) => x.job_id === reply.job_id)!;
    assert.ok(j, `reply for an unknown job ${reply.job_id}`);
    assert.ok(!seen.has(reply.job_id));
    seen.add(reply.job_id);
    assert.equal(reply.protocol, 1);
    assert.equal(reply.run_id, "server-test");
    assert.equal(reply.fixture_id, j.fixture_id);
    assert.equal(reply.kind, j.input.kind);
    assert.equal(reply.host_id, "test-host");
    assert.equal(reply.process_id, child.pid);
    assert.equal(reply.encoded_bytes, proof.length);
    assert.equal(reply.canonical_sha256, sha256Hex(proof));
    assert.ok(reply.batch_id >= 1n && reply.batch_size >= 1 && reply.batch_size <= 8);
    const t = [
      reply.server_received_unix_ns,
      reply.server_enqueued_unix_ns,
      reply.flush_unix_ns,
      reply.witness_end_unix_ns,
      reply.prove_end_unix_ns,
      reply.encode_end_unix_ns,
      reply.server_send_start_unix_ns,
    ];
    for (let k = 1; k < t.length; k++) assert.ok(t[k]! >= t[k - 1]!, `timestamps in order at ${k}`);
    assert.equal(reply.witness_start_unix_ns, reply.flush_unix_ns);
    assert.equal(
      reply.batch_witness_ns + reply.batch_prove_ns + reply.batch_encode_ns,
      reply.encode_end_unix_ns - reply.flush_unix_ns,
    );
    const req = requestFromInput(j.input, DEPTH);
    assert.ok(req.ok);
    const verdict = verifyEncoded(prepared[opKindTag(req.kind)]!, req.request, proof);
    assert.ok(verdict.ok, `job ${reply.job_id}: ${verdict.ok ? "" : verdict.code}`);
  }
  // batches hold one kind each
  const byBatch = new Map<bigint, Set<string>>();
  for (const { reply } of replies)
    byBatch.set(reply.batch_id, (byBatch.get(reply.batch_id) ?? new Set()).add(reply.kind));
  for (const kinds of byBatch.values()) assert.equal(kinds.size, 1);
  c.socket.end();
  await c.closed;
});

function edit(input: JobInput, f: (v: any) => void): JobInput {
  const v = structuredClone(input) as any;
  f(v);
  return v;
}

test("bad inputs get the §16.2 error replies and the connection keeps serving", async () => {
  const c = await client();
  const m = inputFromRequest(corpusRequest(0, 1, { depth: DEPTH }));
  const cases: [JobInput, string][] = [
    [
      edit(m, (v) => {
        v.key = 16n;
      }),
      "input: input outside measured profile",
    ],
    [
      edit(m, (v) => {
        v.siblings.pop();
      }),
      "input: input outside measured profile",
    ],
    [
      edit(m, (v) => {
        v.siblings[2][3] = P;
      }),
      "input: noncanonical input field",
    ],
    [
      edit(m, (v) => {
        v.old_root[0] = P + 5;
      }),
      "input: noncanonical input field",
    ],
    [
      edit(m, (v) => {
        v.old_leaf.payload = new Array(22).fill(0);
      }),
      "input: payload exceeds measured profile",
    ],
    [
      edit(m, (v) => {
        v.new_leaf.payload[0] ^= 1;
      }),
      "input: invalid membership leaves",
    ],
    [
      edit(m, (v) => {
        v.old_leaf.tag = 4;
      }),
      "input: invalid leaf tag/fields",
    ],
    [
      edit(m, (v) => {
        v.kind = "insert";
      }),
      "input: unknown operation kind",
    ],
  ];
  c.socket.write(Buffer.concat(cases.map(([inp], i) => encodeJobFrame(job(inp, BigInt(100 + i), i)))));
  const replies = await c.waitFor(cases.length);
  for (const { reply, proof } of replies) {
    const i = Number(reply.job_id) - 100;
    assert.equal(reply.error, cases[i]![1]);
    assert.equal(proof.length, 0);
    assert.equal(reply.encoded_bytes, 0);
    assert.equal(reply.canonical_sha256, "");
    assert.equal(reply.batch_id, 0n);
    assert.equal(reply.fixture_id, i);
    assert.ok(reply.server_received_unix_ns > 0n);
  }
  c.socket.write(encodeJobFrame(job(m, 200n, 1)));
  const [last] = (await c.waitFor(cases.length + 1)).slice(-1);
  assert.equal(last!.reply.job_id, 200n);
  assert.equal(last!.reply.error, null);
  assert.equal(last!.reply.canonical_sha256, sha256Hex(last!.proof));
  c.socket.destroy();
});

async function expectClosedWithoutReply(write: (s: Socket) => void, why: string): Promise<void> {
  const c = await client();
  write(c.socket);
  await c.closed;
  assert.equal(c.replies.length, 0, why);
}

test("frames that are not Jobs, wrong protocol, empty run_id, oversized or truncated frames close the connection without a reply", async () => {
  const m = inputFromRequest(corpusRequest(0, 1, { depth: DEPTH }));
  const text = (s: string) => encodeFrame(Buffer.from(s), 1 << 22);
  await expectClosedWithoutReply((s) => s.write(text("{not json")), "invalid JSON");
  await expectClosedWithoutReply((s) => s.write(encodeJobFrame(job(m, 1n, 0, { protocol: 2 }))), "protocol 2");
  await expectClosedWithoutReply((s) => s.write(encodeJobFrame(job(m, 1n, 0, { run_id: "" }))), "empty run_id");
  const missing = parseJson(jobToJson(job(m, 1n, 0))) as Record<string, unknown>;
  delete missing.warmup;
  await expectClosedWithoutReply(
    (s) => s.write(text(JSON.stringify(missing, (_k, v) => (typeof v === "bigint" ? Number(v) : v)))),
    "missing field",
  );
  await expectClosedWithoutReply(
    (s) => s.write(text(jobToJson(job(m, 1n, 0)).replace('"tag":1', '"tag":-1'))),
    "tag not a u8",
  );
  const header = Buffer.alloc(4);
  header.writeUInt32BE(2 * 1024 * 1024 + 1, 0);
  await expectClosedWithoutReply((s) => s.write(header), "oversized frame");
  const frame = encodeJobFrame(job(m, 1n, 0));
  await expectClosedWithoutReply((s) => s.end(frame.subarray(0, frame.length - 10)), "truncated frame");
  // half a frame, then silence: dropped after the I/O timeout
  await expectClosedWithoutReply((s) => s.write(frame.subarray(0, 100)), "stalled frame");
});

test("replies owed before a bad frame are still delivered, then the connection closes", async () => {
  const c = await client();
  const m = inputFromRequest(corpusRequest(1, 2, { depth: DEPTH }));
  c.socket.write(Buffer.concat([encodeJobFrame(job(m, 300n, 2)), encodeFrame(Buffer.from("[]"), 100)]));
  await c.closed;
  assert.equal(c.replies.length, 1);
  assert.equal(c.replies[0]!.reply.job_id, 300n);
  assert.equal(c.replies[0]!.reply.error, null);
});

test("SIGTERM stops the server: SERVER_STOPPED with counts, exit code 0", async () => {
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  child.kill("SIGTERM");
  const line = await waitForLine((l) => l.includes("SERVER_STOPPED"), 30_000);
  const s = JSON.parse(line) as Record<string, any>;
  assert.equal(s.status, "SERVER_STOPPED");
  assert.equal(s.reason, "stopped");
  assert.equal(s.processed_jobs, 26);
  assert.equal(s.proof_replies, 26);
  assert.equal(s.input_errors, 8);
  assert.equal(s.unprocessed_jobs, 0);
  assert.ok(s.batches >= 4);
  assert.equal(s.connection_closes.bad_job, 4);
  assert.equal(s.connection_closes.protocol_mismatch, 2);
  assert.equal(s.connection_closes.frame_too_large, 1);
  assert.equal(s.connection_closes.frame_truncated, 1);
  assert.equal(s.connection_closes.read_stall, 1);
  assert.equal(await exited, 0);
  assert.ok(stdoutLines.some((l) => l.includes("CONTROLS_PASS")));
  const controls = JSON.parse(stdoutLines.find((l) => l.includes("CONTROLS_PASS"))!) as {
    references: Record<string, string[]>;
  };
  assert.equal(controls.references.membership!.length, 1);
  assert.match(controls.references.update![0]!, /^[0-9a-f]{64}$/);
});

test("serve refuses bad options before preparing anything (exit 2, one line)", () => {
  const cases: [string[], RegExp][] = [
    [["--depth", "4", "--depth", "5"], /--depth given more than once/],
    [["--bogus", "1"], /unknown option '--bogus'/],
    [["extra"], /too many arguments/],
    [["--depth", "33"], /--depth must be an integer in \[1, 32\]/],
    [["--listen", "localhost"], /--listen must be HOST:PORT/],
    [["--return-path", "fast"], /--return-path/],
    [["--depth", "1"], /--control-samples must be an integer in \[1, 1\]/],
    [["--workers", "0"], /--workers must be an integer in \[1, 1024\]/],
  ];
  for (const [args, re] of cases) {
    const r = spawnSync(process.execPath, [join("bin", "ssgkr.js"), "serve", ...args], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split("\n").length, 1);
    assert.equal(r.stdout, "");
  }
});
