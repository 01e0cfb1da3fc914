/**
 * Test set-up shared by the HTTP and browser tests: a small registry on disk, the built verifier
 * page, the API listening on 127.0.0.1, and headless Chromium driven by puppeteer-core.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { RegistryStore } from "../../src/registry/store/store.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { deleteRecord, insertRecord } from "../../src/registry/operations.js";
import { createRegistryApp, type RegistryApp, type RegistryHttpOptions } from "../../src/http/server.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { npmReposSource, npmReposSubsetPath } from "../../src/registry/import/dataset.js";
import { proveBlockToDir } from "../../src/registry/block-dir.js";
import type { BlockUpdate } from "../../src/registry/name-block.js";
import { formatRoot } from "../../src/registry/root.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const CHROMIUM = process.env.SSGKR_CHROMIUM ?? "/usr/bin/chromium";
export const TOKEN = "test-token-0123456789";

/** A fresh temporary directory (removed by `cleanup`). */
export function freshDir(prefix = "ssgkr-web-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Records of the test registry: two live (one scoped name), one deleted. */
export const RECORDS = { live: "left-pad", scoped: "@scope/pkg", deleted: "gone" } as const;

/**
 * A name-keyed registry (record-leaf-v2) of depth `depth` with the test records, in `dir/sub`;
 * `liveValue` replaces the value of `left-pad` (another registry with another root).
 */
export function makeRegistry(dir: string, depth = 24, opts: { sub?: string; liveValue?: string } = {}): NameStore {
  const store = NameStore.openOrCreate(join(dir, opts.sub ?? "db"), { depth });
  planNameUpdate(store, "insert", RECORDS.live, opts.liveValue ?? "https://github.com/left-pad/left-pad").commit();
  planNameUpdate(store, "insert", RECORDS.scoped, "https://gitlab.com/scope/pkg").commit();
  planNameUpdate(store, "insert", RECORDS.deleted, null).commit();
  planNameUpdate(store, "delete", RECORDS.deleted).commit();
  return store;
}

/** A slot registry (record-leaf-v1) of depth `depth` with the test records. */
export function makeSlotRegistry(dir: string, depth = 24, sub = "slot-db"): RegistryStore {
  const store = RegistryStore.openOrCreate(join(dir, sub), { depth });
  insertRecord(store, RECORDS.live, "https://github.com/left-pad/left-pad");
  insertRecord(store, RECORDS.scoped, "https://gitlab.com/scope/pkg");
  insertRecord(store, RECORDS.deleted, null);
  deleteRecord(store, { name: RECORDS.deleted });
  return store;
}

/** A profile v3 registry block as `prove-block --profile v3` writes it, with the roots it goes between. */
export interface V3BlockFiles {
  /** The block directory (block.json, block.bin). */
  readonly dir: string;
  /** block.json's text. */
  readonly blockJson: string;
  /** block.bin. */
  readonly proof: Uint8Array;
  readonly fromRoot: string;
  readonly toRoot: string;
  readonly depth: number;
  readonly leafMaxFields: number;
}

/** Updates of the test blocks (every op and value form) over a registry holding the first npm records ("1", "2", …). */
export const V3_TEST_UPDATES: readonly BlockUpdate[] = [
  { op: "insert", name: "block-new-package", value: "https://github.com/example/new" },
  { op: "replace", name: "1", value: "https://gitlab.com/x/one" },
  { op: "delete", name: "2" },
  { op: "restore", name: "2" },
  { op: "replace", name: "block-new-package", value: null },
  { op: "insert", name: "fields-package", value: { fields: [1, 2, 3] } },
];

/** Records [from, from + n) of the bundled npm subset as block inserts. */
export function npmInserts(from: number, n: number): BlockUpdate[] {
  const lines = gunzipSync(readFileSync(npmReposSubsetPath())).toString("utf8").split("\n");
  if (from + n > lines.length - 1)
    throw new RangeError(`the npm subset has ${lines.length - 1} records, fewer than ${from + n}`);
  return lines.slice(from, from + n).map((l) => {
    const r = JSON.parse(l) as { name: string; value: string | null };
    return { op: "insert", name: r.name, value: r.value };
  });
}

/**
 * A name-keyed registry of `depth` in `dir/sub` holding the first `records` npm records, then
 * `updates` applied as one profile v3 block (`proveBlockToDir`, written to `dir/sub-block`); the
 * registry is closed again.
 */
export async function makeV3Block(
  dir: string,
  opts: { depth: number; records: number; updates: readonly BlockUpdate[]; sub?: string; zk?: boolean },
): Promise<V3BlockFiles> {
  const sub = opts.sub ?? "v3-db";
  const store = NameStore.openOrCreate(join(dir, sub), { depth: opts.depth });
  try {
    await importNames(store, () => npmReposSource(opts.records), { threads: 0 });
    const out = join(dir, `${sub}-block`);
    const { applied } = proveBlockToDir(store, opts.updates, out, { profile: "v3", zk: opts.zk === true });
    return {
      dir: out,
      blockJson: readFileSync(join(out, "block.json"), "utf8"),
      proof: new Uint8Array(readFileSync(join(out, "block.bin"))),
      fromRoot: formatRoot(applied.fromRoot),
      toRoot: formatRoot(applied.toRoot),
      depth: store.config.depth,
      leafMaxFields: store.config.leafMaxFields,
    };
  } finally {
    await store.close();
  }
}

/** Builds the verifier page into `dir/web`. */
export async function buildPage(dir: string): Promise<string> {
  const out = join(dir, "web");
  const { buildWeb } = (await import(pathToFileURL(join(ROOT, "scripts", "build-web.mjs")).href)) as {
    buildWeb: (d: string) => Promise<unknown>;
  };
  await buildWeb(out);
  return out;
}

/** The API on 127.0.0.1 (free port); `base` is its URL. */
export async function startServer(options: RegistryHttpOptions): Promise<RegistryApp & { base: string }> {
  const r = await createRegistryApp(options);
  const base = await r.app.listen({ host: "127.0.0.1", port: 0 });
  if (!base.startsWith("http://127.0.0.1:")) throw new Error(`server bound to ${base}, not 127.0.0.1`);
  return { ...r, base };
}

/** Writes a token file with surrounding whitespace (the server trims it). */
export function tokenFile(dir: string): string {
  const p = join(dir, "token");
  writeFileSync(p, `\n  ${TOKEN}  \n`);
  return p;
}

/** Chromium flags: no sandbox as root, and nothing that reaches an outside host. */
export function chromiumArgs(userDataDir: string): string[] {
  return [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-default-browser-check",
    `--user-data-dir=${userDataDir}`,
  ];
}

/** Launches headless Chromium (puppeteer-core; no browser download; `--headless` is in the flags). */
export async function launchChromium(dir: string) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const { launch } = await import("puppeteer-core");
  const userDataDir = join(dir, "chromium-profile");
  mkdirSync(userDataDir, { recursive: true });
  return launch({
    executablePath: CHROMIUM,
    headless: false,
    args: chromiumArgs(userDataDir),
    defaultViewport: { width: 1000, height: 900 },
  });
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** `POST /v1/verify` of `body` (JSON-encoded unless it is already text): the status and the JSON answer. */
export async function postVerify(base: string, body: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(`${base}/v1/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const execFileAsync = promisify(execFile);

/**
 * Runs `ssgkr` (bin/ssgkr.js) in `cwd` as a child process without blocking this process's event
 * loop, so a server started by the test keeps answering it: exit status and output.
 */
export async function runSsgkr(
  cwd: string,
  ...args: string[]
): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const r = await execFileAsync(process.execPath, [join(ROOT, "bin", "ssgkr.js"), ...args], {
      cwd,
      encoding: "utf8",
      timeout: 120_000,
    });
    return { status: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { status: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

/** A `ssgkr registry http` child process: its base URL once it listens, and its standard error so far. */
export interface ServerProcess {
  readonly base: string;
  readonly proc: import("node:child_process").ChildProcess;
  stderr(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `ssgkr registry http ARGS` (add `--listen 127.0.0.1:0`) in `cwd`; resolves with its base
 * URL once it prints `listening on …`. @throws when it exits first or does not listen in `timeoutMs`.
 */
export async function spawnServer(args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<ServerProcess> {
  const { spawn } = await import("node:child_process");
  const proc = spawn(process.execPath, [join(ROOT, "bin", "ssgkr.js"), "registry", "http", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  proc.stderr!.on("data", (d) => (err += d));
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out} ${err}`)), timeoutMs);
    proc.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return {
    base,
    proc,
    stderr: () => err,
    stop: async () => {
      if (proc.exitCode !== null) return;
      proc.kill("SIGTERM");
      await new Promise((r) => proc.once("exit", r));
    },
  };
}
