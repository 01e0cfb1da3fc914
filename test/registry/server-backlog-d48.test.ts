/**
 * The registry server at the default depth 48 with a backlog of unproved batches, as an operator
 * meets it (docs/http.md "How it runs"): after an import of 5,000 npm records the server prints
 * `listening` once its proving workers are ready and from then on answers reads — uncached proofs
 * included — while the import's block is proved in parts on the pool, never waiting for a part: a
 * median within 2 s, and each read within half the time of the fastest part the server reports
 * proving in the same run (a read queued behind a part would take at least a part's time; on a
 * loaded machine both slow down together, so the bound holds at any load); a CLI import of
 * 4,200 more records while it runs is proved by that server too, and `GET /v1/consistency` from
 * size 0 across both imports answers 200 within 5 minutes with a chain that verifies.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { npmReposSubsetPath } from "../../src/registry/import/dataset.js";
import { fetchChain } from "../../src/cli/registry-client.js";
import { verifyConsistency } from "../../src/registry/consistency/verify-consistency.js";
import { tempDir } from "./support/tmp.js";
import { spawnServer, type ServerProcess } from "../web/support.js";

const BIN = fileURLToPath(new URL("../../../bin/ssgkr.js", import.meta.url));
const dir = tempDir();
const db = join(dir, "reg");
let server: ServerProcess | undefined;
let base = "";

const ssgkr = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8" });

before(async () => {
  const first = ssgkr("registry", "import", "--db", db, "--source", "npm-repos", "--limit", "5000", "--no-progress");
  assert.equal(first.status, 0, first.stderr);
  writeFileSync(join(dir, "token.txt"), "0123456789abcdef0123456789abcdef\n");
  server = await spawnServer(
    [
      "--db",
      db,
      "--listen",
      "127.0.0.1:0",
      "--rate-limit",
      "0",
      "--workers",
      "2",
      "--token-file",
      join(dir, "token.txt"),
    ],
    dir,
  );
  base = server.base;
});

after(() => {
  if (server && server.proc.exitCode === null) server.proc.kill("SIGKILL");
});

test("start-up with a backlog never stalls: uncached proofs (median within 2 s, none waiting for a part) while the import's parts are proved; a CLI import meanwhile is proved by the server; the chain across both answers 200 within 5 minutes", async () => {
  assert.match(server!.stderr(), /^proving pool: 2 workers ready in /m);
  const lines = gunzipSync(readFileSync(npmReposSubsetPath())).toString("utf8").split("\n");
  const names = lines.slice(0, 5000).map((l) => (JSON.parse(l) as { name: string }).name);
  // reads while the backlog is proved: uncached proofs of distinct names, in turn v1, v3, v3-zk
  const slowest: number[] = [];
  for (let i = 0; i < 9; i++) {
    const name = names[(i * 523) % names.length]!;
    const mode = ["", "?profile=v3", "?zk=1"][i % 3]!;
    const t0 = performance.now();
    const res = await fetch(`${base}/v1/records/${encodeURIComponent(name)}/proof${mode}`);
    slowest.push(performance.now() - t0);
    assert.equal(res.status, 200, await res.text());
  }
  const readTimes = `proof reads took ${slowest.map((t) => t.toFixed(0)).join(", ")} ms`;
  const median = slowest.slice().sort((a, b) => a - b)[slowest.length >> 1]!;
  assert.ok(median < 2000, readTimes);
  const pending = await fetch(`${base}/v1/consistency?from=0&to=1`);
  assert.ok([200, 202].includes(pending.status), `consistency while proving: ${pending.status}`);

  // a CLI import of 4,200 more records while the server runs
  const more = join(dir, "more.ndjson");
  writeFileSync(more, lines.slice(5000, 9200).join("\n") + "\n");
  const second = ssgkr("registry", "import", "--db", db, "--file", more, "--no-progress");
  assert.equal(second.status, 0, second.stderr);
  const t0 = performance.now();
  let status = 0;
  while (performance.now() - t0 < 300_000) {
    const res = await fetch(`${base}/v1/consistency?from=0&to=2&limit=1`);
    status = res.status;
    await res.arrayBuffer();
    if (status === 200) break;
    assert.equal(status, 202, `consistency: ${status}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
  assert.equal(status, 200, `GET /v1/consistency of the first link within 5 minutes: ${status}\n${server!.stderr()}`);
  const root = async (size: number) => {
    const h = (await (await fetch(`${base}/v1/history`)).json()) as { entries: { batch: number; root: string }[] };
    return h.entries.find((e) => e.batch === size)!.root;
  };
  // the whole chain, its later pages waited for within what is left of the 5 minutes
  const chain = await fetchChain(base, 0, 2, Math.max(10_000, 300_000 - (performance.now() - t0)));
  assert.deepEqual(
    chain.map((l) => `${l.batch}.${l.part ?? "-"}`),
    ["1.0", "1.1", "1.2", "2.0", "2.1", "2.2"],
  );
  assert.deepEqual(
    verifyConsistency({ from: { size: 0, root: await root(0) }, to: { size: 2, root: await root(2) } }, chain),
    {
      ok: true,
      blocks: 6,
      unchanged: 0,
    },
  );
  assert.match(server!.stderr(), /^block prover: batch 2 part 3 of 3: 104 updates proved in /m);
  // no read waited for a part: each took under half the fastest part of the import's batch
  const parts = [
    ...server!.stderr().matchAll(/^block prover: batch 1 part \d+ of \d+: \d+ updates proved in ([\d.]+) s$/gm),
  ];
  assert.equal(parts.length, 3, server!.stderr());
  const fastestPartMs = Math.min(...parts.map((m) => Number(m[1]) * 1000));
  assert.ok(Math.max(...slowest) < fastestPartMs / 2, `${readTimes}; the fastest part took ${fastestPartMs} ms`);
});
