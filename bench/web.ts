/**
 * Browser verification time next to Node's, measured in the same run.
 *
 *   npm run bench -- web [--depth 24] [--rounds 7] [--calls 5]
 *
 * Builds the verifier page, serves a registry of `depth` on 127.0.0.1 (the API of
 * `ssgkr registry http`), and checks three proof bodies — membership, non-membership (deleted
 * record) and an update (the body of a PUT) — with `checkProofBody` in Node and, in headless
 * Chromium (Debian's, via puppeteer-core), with the same function bundled in the page (WASM
 * kernels loaded asynchronously). Per kind: the first check's prepare time (compile, commitment,
 * derived wiring) on each side, then `rounds` interleaved rounds of `calls` checks per side
 * (prepared circuit cached); times are ms per check, median (min–max) over the rounds. Goal:
 * browser ≤ 2 × Node.
 */
import { mkdirSync } from "node:fs";
import { checkProofBody } from "../src/counterparty/body.js";
import { parseRoot } from "../src/counterparty/claim.js";
import { buildPage, freshDir, launchChromium, makeRegistry, RECORDS, removeDir, startServer, TOKEN } from "../test/web/support.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { int, parseOptions } from "./lib/options.js";

const args = parseOptions({ depth: int(1, 48), rounds: int(1, 1000), calls: int(1, 1000) }, {
  smoke: { depth: "8", rounds: "1", calls: "1" },
});
const depth = Number(args.get("depth") ?? 24);
const rounds = Number(args.get("rounds") ?? 7);
const calls = Number(args.get("calls") ?? 5);
for (const [k, v] of [["depth", depth], ["rounds", rounds], ["calls", calls]] as const) {
  if (!Number.isInteger(v) || v < 1 || (k === "depth" && v > 48)) throw new Error(`--${k} must be a positive integer${k === "depth" ? " ≤ 48" : ""}, got ${args.get(k)}`);
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(`browser vs Node verification: depth ${depth}, ${rounds} rounds × ${calls} checks per side and kind, Chromium ${"/usr/bin/chromium"}`);

const dir = freshDir("ssgkr-bench-web-");
mkdirSync(dir, { recursive: true });
const store = makeRegistry(dir, depth);
const webDir = await buildPage(dir);
const server = await startServer({ store, webDir, token: TOKEN, rateLimit: 0 });
const browser = await launchChromium(dir);
try {
  const root = Array.from(store.head().root);
  const get = async (name: string) => (await (await fetch(`${server.base}/v1/records/${encodeURIComponent(name)}/proof`)).json()) as Record<string, unknown>;
  progress("proving the bodies");
  const bodies: { kind: string; name: string | undefined; root: number[]; body: Record<string, unknown> }[] = [
    { kind: "membership", name: RECORDS.live, root, body: await get(RECORDS.live) },
    { kind: "nonmembership", name: RECORDS.deleted, root, body: await get(RECORDS.deleted) },
  ];
  const put = await fetch(`${server.base}/v1/records/bench-new`, { method: "PUT", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ value: "https://github.com/bench/new" }) });
  bodies.push({ kind: "update", name: undefined, root, body: (await put.json()) as Record<string, unknown> });

  const page = await browser.newPage();
  await page.goto(`${server.base}/verify/`);
  const backend = await page.evaluate(async () => {
    const s = (globalThis as any).ssgkr;
    return (await s.ready()) as string;
  });
  progress(`page hashing backend: ${backend}`);

  const browserRun = (b: (typeof bodies)[number], n: number) =>
    page.evaluate(
      (body, name, rootText, count) => {
        const s = (globalThis as any).ssgkr;
        const r = s.parseRoot(rootText);
        let ok = true;
        let prepareMs = 0;
        const t0 = performance.now();
        for (let i = 0; i < count; i++) {
          const v = s.checkProofBody(body, name ?? undefined, r);
          ok &&= v.ok;
          prepareMs += v.prepareMs;
        }
        return { ms: (performance.now() - t0) / count, ok, prepareMs };
      },
      b.body,
      b.name ?? null,
      b.root.join(","),
      n,
    );
  const nodeRun = (b: (typeof bodies)[number], n: number) => {
    const r = parseRoot(b.root.join(","));
    let ok = true;
    let prepareMs = 0;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const v = checkProofBody(b.body, b.name, r);
      ok &&= v.ok;
      prepareMs += v.prepareMs;
    }
    return { ms: (performance.now() - t0) / n, ok, prepareMs };
  };

  const results: Record<string, unknown>[] = [];
  const headline: Record<string, number | string> = { depth, backend: backend.startsWith("WASM") ? "wasm" : "typescript" };
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { median: s[s.length >> 1]!, min: s[0]!, max: s[s.length - 1]! };
  };
  for (const b of bodies) {
    progress(`${b.kind}: first check (prepares the circuit) in Node and in the browser`);
    // Node prepared these circuits when proving; the first browser check prepares them in the page.
    const firstBrowser = await browserRun(b, 1);
    const firstNode = nodeRun(b, 1);
    const node: number[] = [];
    const web: number[] = [];
    let allOk = firstBrowser.ok && firstNode.ok;
    for (let r = 0; r < rounds; r++) {
      const n = nodeRun(b, calls);
      const w = await browserRun(b, calls);
      node.push(n.ms);
      web.push(w.ms);
      allOk &&= n.ok && w.ok;
    }
    if (!allOk) throw new Error(`${b.kind}: a check did not accept (the benchmark measures accepting checks)`);
    const ns = stats(node);
    const ws = stats(web);
    const ratio = ws.median / ns.median;
    console.log(`${b.kind.padEnd(14)} Node ${fmt(ns.median, 1)} ms (${fmt(ns.min, 1)}–${fmt(ns.max, 1)})   browser ${fmt(ws.median, 1)} ms (${fmt(ws.min, 1)}–${fmt(ws.max, 1)})   browser/Node ${ratio.toFixed(2)}×   browser prepare ${fmt(firstBrowser.prepareMs, 0)} ms`);
    results.push({ kind: b.kind, nodeMs: ns, browserMs: ws, ratio, browserPrepareMs: firstBrowser.prepareMs, proofBytes: b.body.proof_bytes });
    headline[`${b.kind}_node_ms`] = Number(ns.median.toFixed(2));
    headline[`${b.kind}_browser_ms`] = Number(ws.median.toFixed(2));
    headline[`${b.kind}_ratio`] = Number(ratio.toFixed(2));
    headline[`${b.kind}_browser_prepare_ms`] = Math.round(firstBrowser.prepareMs);
  }
  const worst = Math.max(...results.map((r) => r.ratio as number));
  console.log(`worst browser/Node ratio ${worst.toFixed(2)}× (goal ≤ 2×): ${worst <= 2 ? "met" : "NOT met"}`);
  headline.worst_ratio = Number(worst.toFixed(2));
  const path = writeResults("web", { conditions: cond, depth, rounds, calls, backend, results });
  progress(`results in ${path}`);
  printHeadline(headline);
} finally {
  await browser.close();
  await server.app.close();
  await store.close();
  removeDir(dir);
}
