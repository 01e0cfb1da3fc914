/**
 * docs/http.md runs: the real `ssgkr registry http` process (started as the docs say, on a free
 * port of 127.0.0.1) answers every `sh` block's curl commands with the output its `# expect:`
 * lines describe. Also the command's start-up errors and its clean stop on SIGTERM.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildPage, freshDir, removeDir, ROOT } from "../web/support.js";

const BIN = join(ROOT, "bin", "ssgkr.js");
const DOC = join(ROOT, "docs", "http.md");
let dir: string;
let server: ChildProcess;
let base: string;
let exited: Promise<number | null>;

function ssgkr(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8", timeout: 120_000 });
}

/** The `sh` blocks of the page, without the set-up block. */
function blocks(): string[] {
  const text = readFileSync(DOC, "utf8");
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => !b.startsWith("# set-up"));
}

before(async () => {
  dir = freshDir("ssgkr-http-docs-");
  const setup = readFileSync(DOC, "utf8").match(/```sh\n(# set-up[\s\S]*?)```/)![1]!;
  const records = setup.match(/<<'END'\n([\s\S]*?)END/)![1]!;
  writeFileSync(join(dir, "records.ndjson"), records);
  for (const args of [
    ["registry", "import", "--db", "reg", "--file", "records.ndjson", "--no-progress"],
    ["registry", "delete", "--db", "reg", "--name", "gone"],
  ]) {
    const r = ssgkr(args);
    assert.equal(r.status, 0, r.stderr);
  }
  writeFileSync(join(dir, "token.txt"), "0123456789abcdef0123456789abcdef\n");
  const keygen = ssgkr(["registry", "keygen", "--out", "registry.key", "--origin", "example.com/registry"]);
  assert.equal(keygen.status, 0, keygen.stderr);
  writeFileSync(join(dir, "verifier-key.txt"), keygen.stdout);
  const web = await buildPage(dir);
  server = spawn(
    process.execPath,
    [
      BIN,
      "registry",
      "http",
      "--db",
      "reg",
      "--token-file",
      "token.txt",
      "--listen",
      "127.0.0.1:0",
      "--rate-limit",
      "0",
      "--web",
      web,
      "--signing-key",
      "registry.key",
    ],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  exited = new Promise((r) => server.on("exit", (code) => r(code)));
  let err = "";
  server.stderr!.on("data", (d) => (err += d));
  base = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out} ${err}`)), 60_000);
    server.stdout!.on("data", (d) => {
      out += d;
      const m =
        /listening on (http:\/\/127\.0\.0\.1:\d+) \(writes need the bearer token, checkpoints signed by example\.com\/registry\+[0-9a-f]{8}\+\S+\)/.exec(
          out,
        );
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    server.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
});

after(async () => {
  if (server && server.exitCode === null) server.kill("SIGKILL");
  if (dir) removeDir(dir);
});

test("docs/http.md: every curl example gives the output its `# expect:` lines say", () => {
  const all = blocks();
  assert.ok(all.length >= 8, `found ${all.length} example blocks`);
  let checked = 0;
  for (const block of all) {
    const segments: { commands: string; expect: RegExp }[] = [];
    let commands: string[] = [];
    for (const line of block.split("\n")) {
      const m = /^# expect: (.*)$/.exec(line);
      if (m) {
        segments.push({ commands: commands.join("\n"), expect: new RegExp(m[1]!) });
        commands = [];
      } else commands.push(line.replaceAll("http://127.0.0.1:8080", base));
    }
    assert.ok(segments.length > 0, `block has an # expect: line:\n${block}`);
    const script = segments.map((s) => `${s.commands}\necho "@@segment@@"`).join("\n");
    // `ssgkr` in a block is the package's command (node_modules/.bin, as under npm scripts).
    const r = spawnSync("bash", ["-eo", "pipefail", "-c", script], {
      cwd: dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}` },
    });
    assert.equal(r.status, 0, `block failed (${r.status}): ${r.stderr}\n${block}`);
    const outputs = r.stdout.split("@@segment@@\n");
    segments.forEach((s, i) => {
      assert.match(outputs[i] ?? "", s.expect, `output of:\n${s.commands}`);
      checked++;
    });
  }
  assert.ok(checked >= 20, `${checked} expectations checked`);
});

test("registry http: bad options exit 2 with one error line; SIGTERM stops the server cleanly (exit 0)", async () => {
  const badListen = ssgkr(["registry", "http", "--db", "reg", "--listen", "nowhere"]);
  assert.equal(badListen.status, 2);
  assert.match(badListen.stderr, /^error BAD_OPTION: .*--listen/m);
  const badToken = ssgkr(["registry", "http", "--db", "reg", "--token-file", "missing.txt", "--listen", "127.0.0.1:0"]);
  assert.equal(badToken.status, 2);
  assert.match(badToken.stderr, /^error BAD_TOKEN_FILE: --token-file missing\.txt/m);
  writeFileSync(join(dir, "empty.txt"), "  \n");
  const empty = ssgkr(["registry", "http", "--db", "reg", "--token-file", "empty.txt", "--listen", "127.0.0.1:0"]);
  assert.equal(empty.status, 2);
  assert.match(empty.stderr, /BAD_TOKEN_FILE: .*empty/);
  const noDb = ssgkr(["registry", "http", "--db", "nope", "--listen", "127.0.0.1:0"]);
  assert.equal(noDb.status, 2);
  assert.match(noDb.stderr, /^error DB_MISSING/m);
  server.kill("SIGTERM");
  assert.equal(await exited, 0);
});
