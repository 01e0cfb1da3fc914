/**
 * Profile v2 over NATS JetStream on 127.0.0.1: `ssgkr serve --nats … --profile v2` proves each
 * batch as one aggregate and `ssgkr load --nats … --profile v2` verifies every served aggregate
 * (once per batch) against the request it offered.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadSummary } from "../../src/serve/load/summary.js";
import {
  cleanup,
  haveNatsServer,
  loadArgs,
  readRecords,
  runCli,
  startBroker,
  startWorker,
  tempDir,
} from "./support/nats.js";

after(cleanup);
const skip = haveNatsServer() ? false : "nats-server is not installed (apt-get install -y nats-server)";

test("serve --nats --profile v2 + load --nats --profile v2: every job of the three kinds accepted", {
  skip,
  timeout: 240_000,
}, async () => {
  const broker = await startBroker();
  const w = await startWorker(broker.url, undefined, "v2", ["--profile", "v2", "--max-wait-us", "20000"]);
  assert.match(w.stdout(), /"status":"SERVER_READY".*"profile":"v2"/);
  const out = join(tempDir("ssgkr-nats-v2-"), "run");
  const r = await runCli(
    loadArgs(broker.url, out, [
      "--profile",
      "v2",
      "--jobs",
      "18",
      "--warmup",
      "3",
      "--rate",
      "30",
      "--deadline-ms",
      "60000",
      "--run-id",
      "e2e-nats-v2",
    ]),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^LOAD_OBSERVATIONS_COMPLETE offered=21 submitted=21 accepted=21 accepted_late=0 rejected=0 /);
  const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as LoadSummary;
  assert.ok(s.accounting_balanced);
  assert.equal(s.controls.status, "CONTROLS_PASS");
  assert.equal(readRecords(out).filter((x) => x.outcome === "accepted").length, 21);
  w.child.kill("SIGTERM");
  const stopped = await w.stopped;
  assert.equal(stopped?.["proof_replies"], 21);
});
