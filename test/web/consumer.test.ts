/**
 * A web developer's use of the package, from its tarball: `npm pack`, the tarball extracted into a
 * fresh project's node_modules (its dependencies linked from this checkout's, as an install
 * places them), a small page that imports `statesync-gkr/browser` bundled with esbuild
 * (`--bundle --format=esm`, kernels.wasm copied beside the bundle as docs/browser.md says) and
 * with Vite (`vite build`, defaults: it emits kernels.wasm itself), each served on 127.0.0.1 with
 * the cross-origin isolation headers and driven in headless Chromium. On each page: the WASM
 * kernels load, a v3-zk proof from the registry API is accepted, a profile v3 block is accepted
 * and the same block against another root rejected, a checkpoint signed by the server is accepted
 * with its verifier key (its root the proof's) and an altered one rejected.
 *
 * The first check (the v3-zk proof, circuit preparation included, after the kernels loaded) is
 * timed on each page and on the project's own /verify page, each in a fresh browser context, in
 * five interleaved rounds (the order turning each round): the consumer's median must be at most 1.5 times the project page's
 * (plus 50 ms for timer noise). Sizes and times are printed (and written to
 * SSGKR_CONSUMER_REPORT when set). Runs in the browser step (`npm run test:browser`).
 */
import { after, before, test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { loadavg } from "node:os";
import { dirname, extname, join, normalize } from "node:path";
import type { Browser } from "puppeteer-core";
import { formatRoot } from "../../src/counterparty/claim.js";
import { bytesBase64 } from "../../src/counterparty/body.js";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { signingKeyOfSeed } from "../../src/registry/checkpoint/signing-key.js";
import {
  buildPage,
  freshDir,
  launchChromium,
  makeRegistry,
  makeV3Block,
  RECORDS,
  removeDir,
  ROOT,
  startServer,
  V3_TEST_UPDATES,
  type V3BlockFiles,
} from "./support.js";

const ENABLED = process.env.SSGKR_BROWSER_TESTS === "1";
/** Rounds of first checks per page (medians compared: one first check on a loaded machine is noisy). */
const ROUNDS = 5;
const test = (name: string, fn: () => Promise<void>) =>
  nodeTest(name, { skip: ENABLED ? false : "browser tests run in their own step: npm run test:browser" }, fn);

/** The consumer's page: the same code for both bundlers. */
const MAIN_JS = `import {
  loadKernels,
  checkProofBody,
  verifyRegistryBlock,
  verifyCheckpoint,
  parseVerifierKey,
  parseRoot,
  formatRoot,
} from "statesync-gkr/browser";

const ready = loadKernels();
const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

globalThis.consumer = {
  ready: () => ready,
  async run(f) {
    const backend = await ready;
    const t0 = performance.now();
    const zk = checkProofBody(f.zkBody, f.name, parseRoot(f.root));
    const firstMs = performance.now() - t0;
    const key = parseVerifierKey(f.verifierKey);
    const cp = verifyCheckpoint(f.checkpoint, key);
    const altered = verifyCheckpoint(f.checkpoint.replace(/\\n\\d+\\n/, "\\n999\\n"), key);
    const files = { blockJson: f.block.blockJson, proof: bytes(f.block.proof) };
    const t1 = performance.now();
    const block = verifyRegistryBlock({ fromRoot: parseRoot(f.block.fromRoot), toRoot: parseRoot(f.block.toRoot) }, files);
    const blockMs = performance.now() - t1;
    const wrong = verifyRegistryBlock({ fromRoot: parseRoot(f.block.toRoot), toRoot: parseRoot(f.block.toRoot) }, files);
    return {
      backend,
      firstMs,
      blockMs,
      zk: { ok: zk.ok, code: zk.code ?? "", profile: zk.profile ?? "" },
      checkpoint: { ok: cp.ok, root: cp.ok ? formatRoot(cp.root) : "", code: cp.ok ? "" : cp.code },
      altered: altered.ok ? "ACCEPT" : altered.code,
      block: block.ok ? "ACCEPT" : block.code,
      wrongRoot: wrong.ok ? "ACCEPT" : wrong.code,
    };
  },
};
`;

const INDEX_HTML = (src: string) =>
  `<!doctype html>\n<html><head><meta charset="utf-8"><title>consumer</title></head>\n<body><script type="module" src="${src}"></script></body></html>\n`;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".wasm": "application/wasm",
  ".map": "application/json",
};

/** A static server of `dir` on 127.0.0.1, cross-origin isolated (the kernels' shared memory needs it). */
async function serveStatic(dir: string): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(
      /^(\.\.[/\\])+/,
      "",
    );
    const file = join(dir, path.endsWith("/") ? `${path}index.html` : path);
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-embedder-policy": "require-corp",
    });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const addr = server.address() as { port: number };
  return { server, base: `http://127.0.0.1:${addr.port}` };
}

/** Bytes of every file under `dir` by extension, and their sum. */
function sizes(dir: string): { js: number; wasm: number; total: number; files: Record<string, number> } {
  const files: Record<string, number> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files[p.slice(dir.length + 1)] = statSync(p).size;
    }
  };
  walk(dir);
  const sum = (ext: string) =>
    Object.entries(files)
      .filter(([f]) => f.endsWith(ext))
      .reduce((a, [, n]) => a + n, 0);
  return { js: sum(".js"), wasm: sum(".wasm"), total: Object.values(files).reduce((a, b) => a + b, 0), files };
}

let dir: string;
let consumer: string;
let store: NameStore;
let api: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let block: V3BlockFiles;
const statics: Server[] = [];
let fixtures: Record<string, unknown>;
let rootText: string;
const report: Record<string, unknown> = {};

before(async () => {
  if (!ENABLED) return;
  dir = freshDir("ssgkr-consumer-page-");
  // The package as published: npm pack, then the tarball's files in node_modules/statesync-gkr.
  const packed = spawnSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 300_000,
  });
  assert.equal(packed.status, 0, `npm pack: ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout) as { filename: string; size: number }[];
  report.tarballBytes = info!.size;
  consumer = join(dir, "consumer");
  const modules = join(consumer, "node_modules");
  mkdirSync(modules, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", join(dir, info!.filename), "-C", modules], { encoding: "utf8" });
  assert.equal(untar.status, 0, `tar: ${untar.stderr}`);
  renameSync(join(modules, "package"), join(modules, "statesync-gkr"));
  const pkg = JSON.parse(readFileSync(join(modules, "statesync-gkr", "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(pkg.dependencies)) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", name), join(modules, name), "dir");
  }
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer-page", private: true, type: "module" }, null, 2) + "\n",
  );
  writeFileSync(join(consumer, "main.js"), MAIN_JS);
  writeFileSync(join(consumer, "index.html"), INDEX_HTML("/main.js"));

  // Fixtures from the registry API: a v3-zk proof and a signed checkpoint of one head, and a v3 block.
  store = makeRegistry(dir);
  const signingKey = signingKeyOfSeed("example.com/registry", new Uint8Array(32).fill(7));
  api = await startServer({ store, webDir: await buildPage(dir), signingKey, rateLimit: 0 });
  rootText = formatRoot(store.head().root);
  const zkBody = await (await fetch(`${api.base}/v1/records/${RECORDS.live}/proof?profile=v3&zk=1`)).json();
  const checkpoint = await (await fetch(`${api.base}/v1/checkpoint`)).text();
  block = await makeV3Block(dir, { depth: 16, records: 40, updates: V3_TEST_UPDATES });
  fixtures = {
    name: RECORDS.live,
    root: rootText,
    zkBody,
    checkpoint,
    verifierKey: signingKey.verifierKey,
    block: {
      blockJson: block.blockJson,
      proof: bytesBase64(block.proof),
      fromRoot: block.fromRoot,
      toRoot: block.toRoot,
    },
  };
  browser = await launchChromium(dir);
});

after(async () => {
  for (const s of statics) s.close();
  await browser?.close();
  await api?.app.close();
  await store?.close();
  if (ENABLED && Object.keys(report).length > 0) {
    console.log(`consumer page: ${JSON.stringify(report)}`);
    if (process.env.SSGKR_CONSUMER_REPORT)
      writeFileSync(process.env.SSGKR_CONSUMER_REPORT, JSON.stringify(report, null, 2) + "\n");
  }
  if (dir) removeDir(dir);
});

interface ConsumerResult {
  backend: string;
  firstMs: number;
  blockMs: number;
  zk: { ok: boolean; code: string; profile: string };
  checkpoint: { ok: boolean; root: string; code: string };
  altered: string;
  block: string;
  wrongRoot: string;
}

/** Opens the consumer page at `base` in a fresh context and runs the checks. */
async function runConsumer(base: string): Promise<ConsumerResult> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${base}/`, { waitUntil: "load" });
    await page.waitForFunction(() => (globalThis as { consumer?: unknown }).consumer !== undefined, {
      timeout: 60_000,
    });
    const r = (await page.evaluate(
      (f) => (globalThis as unknown as { consumer: { run(f: unknown): Promise<unknown> } }).consumer.run(f),
      fixtures,
    )) as ConsumerResult;
    assert.deepEqual(errors, [], "the page raised no error");
    return r;
  } finally {
    await context.close();
  }
}

/** The first check of the same v3-zk proof on the project's own /verify page (after its kernels loaded). */
async function runProjectPage(): Promise<{ backend: string; firstMs: number }> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(`${api.base}/verify/`, { waitUntil: "load" });
    await page.waitForFunction(() => (globalThis as { ssgkr?: unknown }).ssgkr !== undefined, { timeout: 60_000 });
    return (await page.evaluate(
      async (f: { zkBody: unknown; name: string; root: string }) => {
        const s = (globalThis as unknown as { ssgkr: Record<string, (...a: unknown[]) => any> }).ssgkr;
        const backend = await s.ready!();
        const t0 = performance.now();
        const v = s.checkProofBody!(f.zkBody, f.name, s.parseRoot!(f.root));
        const firstMs = performance.now() - t0;
        if (!v.ok) throw new Error(`the project page rejected the proof: ${v.code}`);
        return { backend: String(backend), firstMs };
      },
      fixtures as { zkBody: unknown; name: string; root: string },
    )) as { backend: string; firstMs: number };
  } finally {
    await context.close();
  }
}

function assertChecks(label: string, r: ConsumerResult): void {
  assert.equal(r.backend, "wasm", `${label}: the WASM kernels loaded`);
  assert.deepEqual(r.zk, { ok: true, code: "", profile: "v3-zk" }, `${label}: the v3-zk proof is accepted`);
  assert.deepEqual(r.checkpoint, { ok: true, root: rootText, code: "" }, `${label}: the checkpoint is accepted`);
  assert.equal(r.altered, "CHECKPOINT_BAD_SIGNATURE", `${label}: an altered checkpoint is rejected`);
  assert.equal(r.block, "ACCEPT", `${label}: the v3 block is accepted`);
  assert.notEqual(r.wrongRoot, "ACCEPT", `${label}: the block against another root is rejected`);
}

test("a consumer page bundled with esbuild and with Vite from the packed tarball verifies a v3 block, a v3-zk proof and a checkpoint in Chromium; its first check takes at most 1.5× the project page's", async () => {
  // esbuild: bundle, module format (the entry uses import.meta.url), kernels.wasm copied beside the bundle.
  const { build } = await import("esbuild");
  const esOut = join(consumer, "out-esbuild");
  const t0 = performance.now();
  await build({
    entryPoints: [join(consumer, "main.js")],
    bundle: true,
    format: "esm",
    outdir: esOut,
    absWorkingDir: consumer,
    logLevel: "silent",
  });
  report.esbuildMs = Math.round(performance.now() - t0);
  copyFileSync(join(consumer, "node_modules", "statesync-gkr", "wasm", "kernels.wasm"), join(esOut, "kernels.wasm"));
  writeFileSync(join(esOut, "index.html"), INDEX_HTML("./main.js"));
  // esbuild's default format for the browser (iife: import.meta is empty, kernelsUrl() names the page's folder), minified
  await build({
    entryPoints: [join(consumer, "main.js")],
    bundle: true,
    minify: true,
    outdir: join(dir, "minified"),
    absWorkingDir: consumer,
    logLevel: "silent",
  });
  copyFileSync(join(esOut, "kernels.wasm"), join(dir, "minified", "kernels.wasm"));
  writeFileSync(join(dir, "minified", "index.html"), INDEX_HTML("./main.js"));
  report.esbuild = sizes(esOut);
  report.esbuildMinified = sizes(join(dir, "minified"));

  // Vite: `vite build` with its defaults (index.html at the root; kernels.wasm emitted by Vite).
  const vite = await import("vite");
  const t1 = performance.now();
  await vite.build({ root: consumer, configFile: false, logLevel: "silent" });
  report.viteMs = Math.round(performance.now() - t1);
  const viteOut = join(consumer, "dist");
  const vs = sizes(viteOut);
  report.vite = vs;
  assert.ok(vs.wasm > 0, `Vite emitted kernels.wasm (${JSON.stringify(vs.files)})`);

  // Each page's first check in a fresh browser context, interleaved over ROUNDS rounds; medians compared.
  const servers: Record<string, string> = {};
  for (const [label, out] of [
    ["esbuild", esOut],
    ["esbuild-minified", join(dir, "minified")],
    ["vite", viteOut],
  ] as const) {
    const s = await serveStatic(out);
    statics.push(s.server);
    servers[label] = s.base;
  }
  const consumers = ["esbuild", "esbuild-minified", "vite"];
  const first: Record<string, number[]> = { project: [], esbuild: [], "esbuild-minified": [], vite: [] };
  const blockMs: Record<string, number[]> = { esbuild: [], "esbuild-minified": [], vite: [] };
  let project: { backend: string; firstMs: number } | undefined;
  const pages = ["project", ...consumers];
  for (let round = 0; round < ROUNDS; round++) {
    // The order turns each round, so no page always follows the same one.
    for (const label of [...pages.slice(round % pages.length), ...pages.slice(0, round % pages.length)]) {
      if (label === "project") {
        project = await runProjectPage();
        first.project!.push(project.firstMs);
        continue;
      }
      const r = await runConsumer(servers[label]!);
      assertChecks(label, r);
      first[label]!.push(r.firstMs);
      blockMs[label]!.push(r.blockMs);
    }
  }
  const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const med = Object.fromEntries(Object.entries(first).map(([k, xs]) => [k, median(xs)])) as Record<string, number>;
  report.firstCheckMs = Object.fromEntries(Object.entries(first).map(([k, xs]) => [k, xs.map(Math.round)]));
  report.firstCheckMedianMs = Object.fromEntries(Object.entries(med).map(([k, x]) => [k, Math.round(x)]));
  report.blockMs = Object.fromEntries(Object.entries(blockMs).map(([k, xs]) => [k, xs.map(Math.round)]));
  report.projectBackend = project!.backend;
  report.loadAverage = loadavg().map((x) => Number(x.toFixed(2)));
  for (const label of consumers)
    assert.ok(
      med[label]! <= 1.5 * med.project! + 50,
      `${label}: first check ${med[label]!.toFixed(0)} ms (median of ${ROUNDS}) ≤ 1.5 × the project page's ${med.project!.toFixed(0)} ms`,
    );
});
