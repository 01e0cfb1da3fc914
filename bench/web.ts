/**
 * Browser verification time next to Node's, measured in the same run.
 *
 *   npm run bench -- web [--depth 24] [--rounds 7] [--calls 5]
 *
 * Builds the verifier page, serves a registry of `depth` on 127.0.0.1 (the API of
 * `ssgkr registry http`), and checks five proof bodies — membership, non-membership (deleted
 * record), an update (the body of a PUT), and a v3-zk membership and absence proof (`?zk=1`,
 * docs/profile-v3.md §11) at the head after it — with `checkProofBody` in Node and, in headless
 * Chromium (Debian's, via puppeteer-core), with the same function bundled in the page (WASM
 * kernels loaded asynchronously). Per kind: the first check's prepare time (compile, commitment,
 * derived wiring) on each side, then `rounds` interleaved rounds of `calls` checks per side
 * (prepared circuit cached); times are ms per check, median (min–max) over the rounds. Goal:
 * browser ≤ 2 × Node. Headline per kind: `<kind>_node_ms`, `<kind>_browser_ms`, `<kind>_ratio`,
 * `<kind>_browser_prepare_ms` (kinds membership, nonmembership, update, zk_membership,
 * zk_nonmembership); `zk_member_verify_browser_ms` is `zk_membership_browser_ms` at depth 48 (the
 * zero-knowledge goal's figure), null at other depths.
 *
 * With --pcs-variables m (default 20; 0 leaves it out) it also verifies one WHIR opening of 2^m
 * random values with the default set (two claims, as bench pcs) in Node and in the page
 * (`verifyWhirOpening`, the same `whirVerify`), after 10 × `calls` warm-up verifications per side,
 * `rounds` interleaved rounds of `calls` each, wall ms
 * per verification: `pcs<m>_verify_node_ms`, `pcs<m>_verify_browser_ms` (at m = 20 the polynomial
 * commitment issue's `pcs20_verify_browser_ms`), `pcs<m>_browser_over_node`.
 *
 *   npm run bench -- web --v3-block 1024 [--v3-depth 48] [--v3-records 20000]
 *
 * With --v3-block N (0, the default, leaves it out) it also measures a profile v3 registry block:
 * a name-keyed registry of --v3-depth holding the first --v3-records records of the bundled npm
 * subset, then the next N records inserted as one block (`proveBlockToDir` with profile v3, as
 * `ssgkr registry prove-block --profile v3` writes it); the auditor's check of block.json (text)
 * and block.bin (base64) from the two roots, `checkBlockBody` (as `POST /v1/verify` and the
 * page's block form run it), timed the same way in Node and in the page: the first check's
 * prepare time, then `rounds` interleaved rounds of `calls` checks per side, wall ms per check.
 * Headline: `v3_block<N>_verify_node_ms`, `v3_block<N>_verify_browser_ms` (medians),
 * `v3_block<N>_browser_over_node`, `v3_block_depth`, `load1`.
 */
import { mkdirSync } from "node:fs";
import { proveNameUpdate } from "../src/counterparty/prove.js";
import { proofBody } from "../src/http/proof-answer.js";
import { bytesBase64, checkProofBody } from "../src/counterparty/body.js";
import { checkBlockBody } from "../src/counterparty/block-body.js";
import { parseRoot } from "../src/counterparty/claim.js";
import {
  buildPage,
  freshDir,
  launchChromium,
  makeRegistry,
  makeV3Block,
  npmInserts,
  RECORDS,
  removeDir,
  startServer,
  TOKEN,
} from "../test/web/support.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import {
  decodeWhirCommitment,
  encodeWhirCommitment,
  evaluateMultilinear,
  whirCommit,
  whirOpen,
  whirVerify,
  type WhirClaim,
} from "../src/pcs/index.js";
import { randomEvaluations, randomPoint } from "../test/pcs/support.js";
import { DEFAULT_WHIR_SET } from "../src/pcs/params.js";
import { int, parseOptions } from "./lib/options.js";

const args = parseOptions(
  {
    depth: int(1, 48),
    rounds: int(1, 1000),
    calls: int(1, 1000),
    "v3-block": int(0, 4096),
    "v3-depth": int(1, 64),
    "v3-records": int(1, 90_000),
    "pcs-variables": int(0, 22),
  },
  {
    smoke: {
      depth: "8",
      rounds: "1",
      calls: "1",
      "v3-block": "4",
      "v3-depth": "16",
      "v3-records": "40",
      "pcs-variables": "11",
    },
  },
);
const depth = Number(args.get("depth") ?? 24);
const rounds = Number(args.get("rounds") ?? 7);
const calls = Number(args.get("calls") ?? 5);
const v3Block = Number(args.get("v3-block") ?? 0);
const v3Depth = Number(args.get("v3-depth") ?? 48);
const v3Records = Number(args.get("v3-records") ?? 20_000);
const pcsVariables = Number(args.get("pcs-variables") ?? 20);
for (const [k, v] of [
  ["depth", depth],
  ["rounds", rounds],
  ["calls", calls],
] as const) {
  if (!Number.isInteger(v) || v < 1 || (k === "depth" && v > 48))
    throw new Error(`--${k} must be a positive integer${k === "depth" ? " ≤ 48" : ""}, got ${args.get(k)}`);
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `browser vs Node verification: depth ${depth}, ${rounds} rounds × ${calls} checks per side and kind, Chromium ${"/usr/bin/chromium"}`,
);

const dir = freshDir("ssgkr-bench-web-");
mkdirSync(dir, { recursive: true });
const store = makeRegistry(dir, depth);
const webDir = await buildPage(dir);
const server = await startServer({ store, webDir, token: TOKEN, rateLimit: 0 });
const browser = await launchChromium(dir);
try {
  const root = Array.from(store.head().root);
  const get = async (name: string, query = "") =>
    (await (await fetch(`${server.base}/v1/records/${encodeURIComponent(name)}/proof${query}`)).json()) as Record<
      string,
      unknown
    >;
  progress("proving the bodies");
  const bodies: { kind: string; name: string | undefined; root: number[]; body: Record<string, unknown> }[] = [
    { kind: "membership", name: RECORDS.live, root, body: await get(RECORDS.live) },
    { kind: "nonmembership", name: RECORDS.deleted, root, body: await get(RECORDS.deleted) },
  ];
  // an update's compat-v1 proof body (`registry prove insert`; writes over HTTP answer with their epoch, not a proof)
  const up = proveNameUpdate(store, "insert", "bench-new", "https://github.com/bench/new");
  const upBody = proofBody(up, { root: up.statement.new_root, batch: up.statement.batch }, undefined);
  bodies.push({
    kind: "update",
    name: undefined,
    root,
    body: JSON.parse(JSON.stringify(upBody)) as Record<string, unknown>,
  });
  // v3-zk (docs/profile-v3.md §11): membership and absence proofs that reveal nothing but the statement
  const zkRoot = Array.from(store.head().root);
  bodies.push(
    { kind: "zk_membership", name: RECORDS.live, root: zkRoot, body: await get(RECORDS.live, "?zk=1") },
    { kind: "zk_nonmembership", name: RECORDS.deleted, root: zkRoot, body: await get(RECORDS.deleted, "?zk=1") },
  );

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
  const headline: Record<string, number | string | null> = {
    depth,
    backend: backend.startsWith("WASM") ? "wasm" : "typescript",
  };
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
    console.log(
      `${b.kind.padEnd(14)} Node ${fmt(ns.median, 1)} ms (${fmt(ns.min, 1)}–${fmt(ns.max, 1)})   browser ${fmt(ws.median, 1)} ms (${fmt(ws.min, 1)}–${fmt(ws.max, 1)})   browser/Node ${ratio.toFixed(2)}×   browser prepare ${fmt(firstBrowser.prepareMs, 0)} ms`,
    );
    results.push({
      kind: b.kind,
      nodeMs: ns,
      browserMs: ws,
      ratio,
      browserPrepareMs: firstBrowser.prepareMs,
      proofBytes: b.body.proof_bytes,
    });
    headline[`${b.kind}_node_ms`] = Number(ns.median.toFixed(2));
    headline[`${b.kind}_browser_ms`] = Number(ws.median.toFixed(2));
    headline[`${b.kind}_ratio`] = Number(ratio.toFixed(2));
    headline[`${b.kind}_browser_prepare_ms`] = Math.round(firstBrowser.prepareMs);
  }
  // the zero-knowledge issue's key: the v3-zk membership check in the page, at depth 48 only
  headline["zk_member_verify_browser_ms"] = depth === 48 ? (headline["zk_membership_browser_ms"] as number) : null;
  let v3: Record<string, unknown> | undefined;
  if (v3Block > 0) {
    progress(
      `v3 block: registry of the first ${v3Records} npm records at depth ${v3Depth}, then ${v3Block} inserts proved as one profile v3 block`,
    );
    const b = await makeV3Block(dir, { depth: v3Depth, records: v3Records, updates: npmInserts(v3Records, v3Block) });
    const body = { block: b.blockJson, proof: bytesBase64(b.proof) };
    await page.evaluate((x) => void ((globalThis as any).__v3Block = x), body);
    const nodeBlock = (n: number) => {
      const roots = { fromRoot: parseRoot(b.fromRoot), toRoot: parseRoot(b.toRoot) };
      let ok = true,
        prepareMs = 0;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const v = checkBlockBody(body, roots);
        ok &&= v.ok;
        prepareMs += v.prepareMs;
      }
      return { ms: (performance.now() - t0) / n, ok, prepareMs };
    };
    const browserBlock = (n: number) =>
      page.evaluate(
        (from, to, count) => {
          const s = (globalThis as any).ssgkr;
          const roots = { fromRoot: s.parseRoot(from), toRoot: s.parseRoot(to) };
          let ok = true,
            prepareMs = 0;
          const t0 = performance.now();
          for (let i = 0; i < count; i++) {
            const v = s.checkBlockBody((globalThis as any).__v3Block, roots);
            ok &&= v.ok;
            prepareMs += v.prepareMs;
          }
          return { ms: (performance.now() - t0) / count, ok, prepareMs };
        },
        b.fromRoot,
        b.toRoot,
        n,
      );
    progress(
      `v3 block: first check (prepares the v3 update circuit) in Node and in the browser, then ${rounds} × ${calls} checks per side`,
    );
    const firstBrowser = await browserBlock(1);
    const firstNode = nodeBlock(1);
    const node: number[] = [],
      web: number[] = [];
    let allOk = firstBrowser.ok && firstNode.ok;
    for (let r = 0; r < rounds; r++) {
      const n = nodeBlock(calls);
      const w = await browserBlock(calls);
      node.push(n.ms);
      web.push(w.ms);
      allOk &&= n.ok && w.ok;
    }
    if (!allOk) throw new Error("v3 block: a check did not accept (the benchmark measures accepting checks)");
    const ns = stats(node),
      ws = stats(web);
    const ratio = ws.median / ns.median;
    const bytes = { blockJson: Buffer.byteLength(b.blockJson), proof: b.proof.length };
    console.log(
      `v3 block of ${v3Block} npm inserts d${v3Depth} (registry of ${v3Records}; block.json ${bytes.blockJson} B + proof ${bytes.proof} B): Node ${fmt(ns.median, 1)} ms (${fmt(ns.min, 1)}–${fmt(ns.max, 1)})   browser ${fmt(ws.median, 1)} ms (${fmt(ws.min, 1)}–${fmt(ws.max, 1)})   browser/Node ${ratio.toFixed(2)}×   prepare Node ${fmt(firstNode.prepareMs, 0)} ms, browser ${fmt(firstBrowser.prepareMs, 0)} ms`,
    );
    v3 = {
      operations: v3Block,
      depth: v3Depth,
      records: v3Records,
      nodeMs: ns,
      browserMs: ws,
      ratio,
      nodePrepareMs: firstNode.prepareMs,
      browserPrepareMs: firstBrowser.prepareMs,
      bytes,
    };
    const k = `v3_block${v3Block}`;
    headline.v3_block_depth = v3Depth;
    headline[`${k}_verify_node_ms`] = Number(ns.median.toFixed(1));
    headline[`${k}_verify_browser_ms`] = Number(ws.median.toFixed(1));
    headline[`${k}_browser_over_node`] = Number(ratio.toFixed(2));
    headline[`${k}_browser_prepare_ms`] = Math.round(firstBrowser.prepareMs);
  }
  let pcs: Record<string, unknown> | undefined;
  if (pcsVariables > 0) {
    const m = pcsVariables;
    progress(`WHIR opening: 2^${m} random values, default set, two claims; verified in Node and in the page`);
    const f = randomEvaluations(m, 1);
    const committed = whirCommit(f);
    const claims: WhirClaim[] = [2, 3].map((seed) => {
      const point = randomPoint(m, seed);
      return { point, value: evaluateMultilinear(f, point) };
    });
    const proof = whirOpen(committed, claims);
    const commitment = encodeWhirCommitment(committed.commitment);
    await page.evaluate(
      (c, cl, pr) => void ((globalThis as any).__pcs = { c: Uint8Array.from(c), claims: cl, p: Uint8Array.from(pr) }),
      Array.from(commitment),
      claims as unknown as number[][],
      Array.from(proof),
    );
    const nodePcs = (n: number) => {
      let ok = true;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) ok &&= whirVerify(decodeWhirCommitment(commitment), claims, proof).ok;
      return { ms: (performance.now() - t0) / n, ok };
    };
    const browserPcs = (n: number) =>
      page.evaluate((count) => {
        const s = (globalThis as any).ssgkr;
        const x = (globalThis as any).__pcs;
        let ok = true;
        const t0 = performance.now();
        for (let i = 0; i < count; i++) ok &&= s.verifyWhirOpening(x.c, x.claims, x.p).ok;
        return { ms: (performance.now() - t0) / count, ok };
      }, n);
    // warm-up, not counted: 10 × calls verifications per side (Chromium's optimising compiler takes
    // longer than Node's to settle on these few-millisecond calls)
    let allOk = (await browserPcs(10 * calls)).ok && nodePcs(10 * calls).ok;
    const node: number[] = [],
      web: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const n = nodePcs(calls);
      const w = await browserPcs(calls);
      node.push(n.ms);
      web.push(w.ms);
      allOk &&= n.ok && w.ok;
    }
    if (!allOk) throw new Error("WHIR opening: a verification did not accept");
    const ns = stats(node),
      ws = stats(web);
    const ratio = ws.median / ns.median;
    console.log(
      `WHIR opening m=${m} ${DEFAULT_WHIR_SET} (proof ${proof.length} B): Node ${fmt(ns.median, 2)} ms (${fmt(ns.min, 2)}–${fmt(ns.max, 2)})   browser ${fmt(ws.median, 2)} ms (${fmt(ws.min, 2)}–${fmt(ws.max, 2)})   browser/Node ${ratio.toFixed(2)}×`,
    );
    pcs = { variables: m, set: DEFAULT_WHIR_SET, proofBytes: proof.length, nodeMs: ns, browserMs: ws, ratio };
    headline[`pcs${m}_verify_node_ms`] = Number(ns.median.toFixed(2));
    headline[`pcs${m}_verify_browser_ms`] = Number(ws.median.toFixed(2));
    headline[`pcs${m}_browser_over_node`] = Number(ratio.toFixed(2));
  }
  headline.load1 = cond.load1;
  const worst = Math.max(...results.map((r) => r.ratio as number));
  console.log(`worst browser/Node ratio ${worst.toFixed(2)}× (goal ≤ 2×): ${worst <= 2 ? "met" : "NOT met"}`);
  headline.worst_ratio = Number(worst.toFixed(2));
  const path = writeResults("web", {
    conditions: cond,
    depth,
    rounds,
    calls,
    backend,
    results,
    ...(v3 ? { v3Block: v3 } : {}),
    ...(pcs ? { pcs } : {}),
  });
  progress(`results in ${path}`);
  printHeadline(headline);
} finally {
  await browser.close();
  await server.app.close();
  await store.close();
  removeDir(dir);
}
