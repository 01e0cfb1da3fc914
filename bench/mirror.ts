/**
 * Verifying mirrors (docs/scale-out.md "Registry mirrors"): a new mirror's catch-up from a primary
 * of `records` npm records at `depth` (default 100,000 at depth 48) with `epochs` epochs of writes
 * after the import, and a following mirror's lag behind a primary under a write load.
 *
 *   npm run bench -- mirror [--records 100000] [--depth 48] [--epochs 20] [--duration 60]
 *
 * Set-up (not timed): `registry import` of the records, `registry prove-blocks --workers 2` of the
 * import (its rate sets the write load below), the primary (`registry http` with a signing key,
 * 2 workers, `--rate-limit 0`), `epochs` rounds of 100 writes each answered after its epoch, and
 * every block proved (`GET /v1/status`).
 * Phases:
 * - catch-up: a new mirror (`Mirror` of src/mirror, in this process; the primary is another
 *   process) verifies every checkpoint and block and applies them until it reaches the primary's
 *   head → updates per second of this process's CPU (`mirror_catchup_updates_per_s`: one core's
 *   rate; the mirror verifies and applies on one thread) and per wall second
 *   (`mirror_catchup_wall_updates_per_s`);
 * - lag: writes at 80 % of the rate the primary's one block worker proves (half the import's
 *   2-worker rate) for `duration` s while the mirror follows (a round every 250 ms); each batch's
 *   lag is the time from when the primary's head first showed it (polled every 200 ms) to when the
 *   mirror reached it (a batch not reached by the end counts the time until then)
 *   → `mirror_lag_p99_s`, and whether it grows (`mirror_lag_growing`: the last third's mean above
 *   twice the first third's).
 * Last line: the headline JSON.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import autocannon from "autocannon";
import { npmReposSubsetPath } from "../src/registry/import/dataset.js";
import { Mirror } from "../src/mirror/mirror.js";
import { freshDir, removeDir, spawnServer, TOKEN } from "../test/web/support.js";
import { ssgkrIn } from "./lib/cli.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { int as intRule, parseOptions } from "./lib/options.js";

const args = parseOptions(
  {
    depth: intRule(1, 48),
    records: intRule(10, 100_000),
    epochs: intRule(1, 1000),
    duration: intRule(1, 600),
  },
  { smoke: { records: "300", epochs: "3", duration: "3" } },
);
const depth = Number(args.get("depth") ?? 48);
const records = Number(args.get("records") ?? 100_000);
const epochs = Number(args.get("epochs") ?? 20);
const duration = Number(args.get("duration") ?? 60);

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `mirror: primary of ${records} npm records at depth ${depth} and ${epochs} epochs of writes; lag phase ${duration} s`,
);

const dir = freshDir("ssgkr-bench-mirror-");
const lines = gunzipSync(readFileSync(npmReposSubsetPath())).toString("utf8").split("\n").filter(Boolean);
writeFileSync(join(dir, "token.txt"), TOKEN + "\n");
writeFileSync(join(dir, "records.ndjson"), lines.slice(0, records).join("\n") + "\n");
const ssgkr = ssgkrIn(dir);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const headline: Record<string, number | string | null> = {};
const results: Record<string, unknown> = { conditions: cond, records, depth, epochs, duration };
try {
  progress(`importing ${records} records at depth ${depth}`);
  ssgkr(
    "registry",
    "import",
    ...["--db", "primary", "--file", "records.ndjson", "--depth", String(depth), "--on-error", "skip"],
    "--no-progress",
  );
  const verifierKey = ssgkr("registry", "keygen", "--out", "signing.key", "--origin", "bench.example/mirror")
    .stdout.trim()
    .split("\n")
    .at(-1)!
    .trim();
  progress(`registry prove-blocks of the import on 2 workers`);
  const drained = ssgkr("registry", "prove-blocks", "--db", "primary", "--workers", "2");
  const drainLine = /\((\d+) updates\) on 2 workers in ([\d.]+) s/.exec(drained.stdout);
  const drainRate = drainLine ? Number(drainLine[1]) / Number(drainLine[2]) : Number.NaN;
  console.log(`prove-blocks (import)  ${fmt(drainRate, 0).padStart(8)} updates/s on 2 workers`);
  const s = await spawnServer(
    [
      ...["--db", "primary", "--listen", "127.0.0.1:0", "--rate-limit", "0", "--token-file", "token.txt"],
      ...["--signing-key", "signing.key", "--workers", "2", "--epoch-ms", "200"],
    ],
    dir,
  );
  try {
    const status = async () =>
      (await (await fetch(`${s.base}/v1/status`)).json()) as {
        head: { batch: number };
        blocks: { pending_batches: number };
      };
    let written = 0;
    const put = async () => {
      const i = written++;
      const r = await fetch(`${s.base}/v1/records/mirror-bench-${i}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ value: `https://example.com/m/${i}` }),
      });
      if (r.status !== 200) throw new Error(`PUT answered ${r.status}: ${await r.text()}`);
    };
    progress(`${epochs} epochs of 100 writes`);
    for (let e = 0; e < epochs; e++) await Promise.all(Array.from({ length: 100 }, put));
    const waitProved = async (limitS: number) => {
      const t0 = Date.now();
      while ((await status()).blocks.pending_batches > 0) {
        if (Date.now() - t0 > limitS * 1000) throw new Error(`blocks still pending after ${limitS} s`);
        await sleep(250);
      }
    };
    await waitProved(600);
    const head = (await status()).head.batch;

    // catch-up of a new mirror
    progress(`a new mirror catches up to size ${head}`);
    const m = await Mirror.open({ from: s.base, key: verifierKey, db: join(dir, "mirror") });
    let updates = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (;;) {
      const r = await m.sync();
      updates += r.updates;
      if (r.size >= head) break;
    }
    const wallS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    console.log(
      `catch-up               ${fmt(updates / cpuS, 0).padStart(8)} updates per CPU second (${updates} updates, ${head} batches, ${fmt(cpuS, 1)} s CPU, ${fmt(wallS, 1)} s wall: ${fmt(updates / wallS, 0)}/s)`,
    );
    results["catchup"] = { updates, batches: head, cpuS, wallS };
    headline["mirror_catchup_updates_per_s"] = Math.round(updates / cpuS);
    headline["mirror_catchup_wall_updates_per_s"] = Math.round(updates / wallS);

    // lag of a following mirror under writes
    const target = Math.max(1, Math.round(0.8 * 0.5 * drainRate));
    progress(`lag: writes at ${target}/s for ${duration} s while the mirror follows`);
    const committed = new Map<number, number>();
    const reached = new Map<number, number>();
    let seen = head;
    let running = true;
    const poller = (async () => {
      while (running) {
        const b = (await status()).head.batch;
        for (let x = seen + 1; x <= b; x++) committed.set(x, Date.now());
        seen = Math.max(seen, b);
        await sleep(200);
      }
    })();
    let mirrored = head;
    const follower = (async () => {
      while (running) {
        const r = await m.sync();
        for (let x = mirrored + 1; x <= r.size; x++) reached.set(x, Date.now());
        mirrored = Math.max(mirrored, r.size);
        await sleep(250);
      }
    })();
    const load = await autocannon({
      url: s.base,
      connections: Math.max(8, Math.min(2048, target * 2)),
      duration,
      timeout: 60,
      overallRate: target,
      requests: [
        {
          method: "PUT",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          setupRequest: (req) => {
            const i = written++;
            return { ...req, path: `/v1/records/mirror-bench-${i}`, body: JSON.stringify({ value: `v${i}` }) };
          },
        },
      ],
    });
    running = false;
    await Promise.all([poller, follower]);
    const end = Date.now();
    const lags = [...committed].map(([b, t]) => ((reached.get(b) ?? end) - t) / 1000);
    const sorted = [...lags].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0;
    const third = Math.max(1, Math.floor(lags.length / 3));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const growing = lags.length >= 3 && mean(lags.slice(-third)) > 2 * Math.max(1, mean(lags.slice(0, third)));
    console.log(
      `mirror lag             ${fmt(p99, 1).padStart(8)} s p99 over ${lags.length} batches at ${fmt(load["2xx"] / load.duration, 0)} writes/s (${growing ? "growing" : "bounded"}; ${reached.size} reached)`,
    );
    results["lag"] = { target, writesPerS: load["2xx"] / load.duration, lags, p99, growing };
    headline["mirror_lag_p99_s"] = p99;
    headline["mirror_lag_growing"] = growing ? 1 : 0;
    m.close();
  } finally {
    await s.stop();
  }
  const path = writeResults("mirror", results);
  progress(`results in ${path}`);
  printHeadline(headline);
} finally {
  removeDir(dir);
}
