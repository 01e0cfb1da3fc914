/**
 * The NATS transport's pure parts: subject and message-id naming, broker option parsing, stream
 * settings bounds, and the load options of a broker run (--nats, --resume, generated run ids).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { brokerEndpoint, connectBroker, parseNatsServers } from "../../src/serve/nats/connect.js";
import { BrokerError } from "../../src/serve/nats/errors.js";
import { jobConsumer, jobSubject, messageId, resultSubject, runToken } from "../../src/serve/nats/names.js";
import { DEFAULT_STREAM_SETTINGS, streamSettings } from "../../src/serve/nats/setup.js";
import { parseStrictArgs } from "../../src/serve/load/argv.js";
import { LoadError } from "../../src/serve/load/errors.js";
import { LOAD_FLAG_NAMES, LOAD_OPTION_NAMES, parseLoadOptions } from "../../src/serve/load/options.js";

test("subjects: one per kind for jobs, one per run for results; message ids are run_id/job_id", () => {
  assert.equal(jobSubject("update"), "ssgkr.jobs.update");
  assert.equal(jobConsumer("membership"), "ssgkr-membership");
  assert.equal(resultSubject("pilot-7"), "ssgkr.results.pilot-7");
  assert.equal(messageId("pilot", 12n), "pilot/12");
  assert.match(runToken("a.b c*>"), /^~[0-9a-f]{32}$/);
});

test("run tokens are valid single subject tokens and distinct for distinct run ids", () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.string({ minLength: 1, maxLength: 80 }), (a, b) => {
      const ta = runToken(a);
      assert.match(ta, /^[^\s.*>]+$/);
      if (a !== b) assert.notEqual(ta, runToken(b));
    }),
    { numRuns: 500 },
  );
});

test("--nats takes nats:// or tls:// HOST:PORT entries; credentials and TLS files are optional, cert and key go together", () => {
  assert.deepEqual(parseNatsServers("nats://10.0.0.1:4222, tls://[::1]:4443"), [
    "nats://10.0.0.1:4222",
    "tls://[::1]:4443",
  ]);
  for (const bad of ["", "10.0.0.1:4222", "http://h:1", "nats://h", "nats://h:0", "nats://h:70000"]) {
    assert.throws(
      () => parseNatsServers(bad),
      (e: unknown) => e instanceof BrokerError && e.code === "BAD_OPTION" && e.details["option"] === "--nats",
      bad,
    );
  }
  assert.deepEqual(brokerEndpoint({ nats: "nats://h:1", "nats-creds": "u.creds" }), {
    servers: ["nats://h:1"],
    creds: "u.creds",
  });
  assert.throws(
    () => brokerEndpoint({ nats: "nats://h:1", "nats-tls-cert": "c.pem" }),
    /--nats-tls-cert and --nats-tls-key go together/,
  );
  assert.throws(() => brokerEndpoint({}), /--nats is required/);
});

test("stream settings: defaults, ranges, and a duplicate window within both max ages", () => {
  assert.deepEqual(streamSettings(), DEFAULT_STREAM_SETTINGS);
  assert.equal(streamSettings({ replicas: 3 }).replicas, 3);
  assert.throws(() => streamSettings({ replicas: 0 }), /--replicas must be an integer in \[1, 5\]/);
  assert.throws(() => streamSettings({ ackWaitMs: 10 }), /--ack-wait-ms/);
  assert.throws(() => streamSettings({ duplicateWindowMs: 7_200_000 }), /--duplicate-window-ms must not exceed/);
});

test("load over a broker: --nats in place of --targets, --resume as a flag, a fresh run id unless one is given", () => {
  const args = (a: string[]) => parseLoadOptions(parseStrictArgs(a, LOAD_OPTION_NAMES, {}, LOAD_FLAG_NAMES));
  const o = args(["--nats", "nats://127.0.0.1:4222", "--out", "x"]);
  assert.deepEqual(o.broker, { nats: "nats://127.0.0.1:4222" });
  assert.deepEqual(o.targets, []);
  assert.match(o.runId, /^run-[0-9T]{15}-[a-z0-9]+$/);
  assert.notEqual(args(["--nats", "nats://127.0.0.1:4222", "--out", "x"]).runId, o.runId);
  assert.equal(args(["--nats", "nats://h:1", "--run-id", "mine", "--out", "x"]).runId, "mine");
  assert.equal(args(["--targets", "127.0.0.1:9400", "--out", "x"]).runId, "pilot");
  assert.equal(args(["--targets", "127.0.0.1:9400", "--out", "x"]).broker, null);
  const r = args(["--nats", "nats://h:1", "--resume", "--out", "x"]);
  assert.equal(r.resume, true);
  const fails = (a: string[], re: RegExp) =>
    assert.throws(
      () => args(a),
      (e: unknown) => e instanceof LoadError && e.code === "BAD_OPTION" && re.test(e.message),
      a.join(" "),
    );
  fails(["--nats", "nats://h:1", "--targets", "h:1", "--out", "x"], /--targets and --nats exclude each other/);
  fails(["--resume", "--out", "x"], /--resume needs --nats/);
  fails(["--nats-creds", "c", "--out", "x"], /--nats-creds needs --nats/);
  fails(["--resume", "--resume", "--nats", "nats://h:1", "--out", "x"], /--resume is given twice/);
});

test("connectBroker: an unreadable credentials or TLS file is BROKER_CONNECT naming the option, the path and why, before any connection", async () => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-creds-"));
  try {
    const missing = join(dir, "nope.creds");
    for (const [ep, text] of [
      [{ servers: ["nats://127.0.0.1:1"], creds: missing }, `cannot read --nats-creds ${missing}: no such file`],
      [{ servers: ["nats://127.0.0.1:1"], creds: dir }, `cannot read --nats-creds ${dir}: is a directory`],
      [{ servers: ["tls://127.0.0.1:1"], tlsCa: missing }, `cannot read --nats-tls-ca ${missing}: no such file`],
    ] as const) {
      await assert.rejects(connectBroker(ep, "test", 200), (e: unknown) => {
        assert.ok(e instanceof BrokerError);
        assert.equal(e.code, "BROKER_CONNECT");
        assert.equal(e.message, text);
        return true;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
