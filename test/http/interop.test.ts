/**
 * The CLI and the HTTP API interoperate: the files `ssgkr registry prove` writes (statement.json,
 * request.json, proof.bin) posted as `{statement, request, proof}` are accepted by `POST
 * /v1/verify`; and the verifier page is where the set-up puts it: `prepare` (what `npm ci` runs)
 * builds it into the folder the server serves by default, and a folder holding only the shipped
 * files (index.html, page.js) serves the package's kernel module.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../registry/support/run-cli.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { DEFAULT_WEB_DIR } from "../../src/http/server.js";
import { freshDir, removeDir, ROOT, startServer } from "../web/support.js";

let dir: string;

before(() => {
  dir = freshDir("ssgkr-interop-");
});

after(() => {
  if (dir) removeDir(dir);
});

/** The body `POST /v1/verify` takes, made of a `registry prove` output folder. */
function bodyOf(out: string): Record<string, unknown> {
  return {
    statement: JSON.parse(readFileSync(join(out, "statement.json"), "utf8")),
    request: JSON.parse(readFileSync(join(out, "request.json"), "utf8")),
    proof: readFileSync(join(out, "proof.bin")).toString("base64"),
  };
}

test("interop: POST /v1/verify accepts the CLI's statement.json, request.json and proof.bin (membership, absence, an update), pinned and unpinned", async () => {
  const db = join(dir, "db");
  const records = join(dir, "r.ndjson");
  await import("node:fs").then((fs) =>
    fs.writeFileSync(
      records,
      '{"name":"left-pad","value":"https://github.com/left-pad/left-pad"}\n{"name":"@scope/pkg","fields":[1,2,3]}\n',
    ),
  );
  assert.equal(
    (
      await runCli(
        "registry",
        "import",
        "--db",
        db,
        "--file",
        records,
        "--depth",
        "16",
        "--threads",
        "0",
        "--no-progress",
      )
    ).code,
    0,
  );
  const cases: [string, string[]][] = [
    ["membership", ["prove", "membership", "--name", "left-pad"]],
    ["fields", ["prove", "membership", "--name", "@scope/pkg"]],
    ["absent", ["prove", "nonmembership", "--name", "never-registered"]],
    ["insert", ["prove", "insert", "--name", "new-pkg", "--value", "https://github.com/x/new-pkg"]],
  ];
  const roots: Record<string, string> = {};
  for (const [label, args] of cases) {
    roots[label] = JSON.parse((await runCli("registry", "root", "--db", db, "--json")).out).root;
    const r = await runCli("registry", ...args, "--db", db, "--out", join(dir, label));
    assert.equal(r.code, 0, `${label}: ${r.err}`);
  }
  const store = NameStore.open(db, { readOnly: true });
  const server = await startServer({ store, rateLimit: 0, webDir: join(dir, "no-page") });
  try {
    for (const [label] of cases) {
      const body = bodyOf(join(dir, label));
      for (const extra of [{}, { trusted_root: roots[label] }]) {
        const res = await fetch(`${server.base}/v1/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...body, ...extra }),
        });
        const v = (await res.json()) as Record<string, unknown>;
        assert.equal(res.status, 200, `${label}: ${JSON.stringify(v)}`);
        assert.equal(v.ok, true, `${label} ${JSON.stringify(extra)}: ${JSON.stringify(v)}`);
        assert.equal(v.root_source, "trusted_root" in extra ? "given" : "statement");
      }
    }
    const forged = bodyOf(join(dir, "membership"));
    (forged.statement as Record<string, unknown>).value = "https://github.com/evil/left-pad";
    const res = await fetch(`${server.base}/v1/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...forged, trusted_root: roots.membership }),
    });
    assert.deepEqual([((await res.json()) as Record<string, unknown>).code], ["VALUE_MISMATCH"]);
  } finally {
    await server.app.close();
    await store.close();
  }
});

test("interop: prepare (what npm ci runs) builds the verifier page where the server looks by default, and /verify serves it", {
  timeout: 120_000,
}, async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
    files: string[];
  };
  assert.match(pkg.scripts.prepare!, /node scripts\/build-web\.mjs/, "prepare builds the page");
  for (const f of ["dist/web/index.html", "dist/web/page.js"])
    assert.ok(pkg.files.includes(f), `the package ships ${f}`);
  // the page step of prepare, as npm ci runs it
  const built = spawnSync(process.execPath, ["scripts/build-web.mjs"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 100_000,
  });
  assert.equal(built.status, 0, built.stderr);
  assert.equal(built.stdout, "", "nothing on stdout (npm pack --json runs prepare)");
  assert.match(
    built.stderr,
    new RegExp(`built the browser verifier in ${join(ROOT, "dist", "web").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
  );
  assert.equal(
    join(DEFAULT_WEB_DIR),
    join(ROOT, "dist", "web", "/"),
    "the server's default page folder is the build's output",
  );

  const store = NameStore.openOrCreate(join(dir, "page-db"), { depth: 8 });
  const server = await startServer({ store, rateLimit: 0 });
  // a folder with only the shipped files (an installed package): kernels.wasm comes from wasm/
  const shipped = join(dir, "shipped-web");
  mkdirSync(shipped);
  for (const f of ["index.html", "page.js"]) copyFileSync(join(DEFAULT_WEB_DIR, f), join(shipped, f));
  const installed = await startServer({ store, rateLimit: 0, webDir: shipped });
  try {
    for (const base of [server.base, installed.base]) {
      const page = await fetch(`${base}/verify/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Verify a registry record/);
      const js = await fetch(`${base}/verify/page.js`);
      assert.equal(js.status, 200);
      const wasm = await fetch(`${base}/verify/kernels.wasm`);
      assert.equal(wasm.status, 200);
      assert.equal(wasm.headers.get("content-type"), "application/wasm");
      assert.deepEqual(
        new Uint8Array(await wasm.arrayBuffer()),
        new Uint8Array(readFileSync(join(ROOT, "wasm", "kernels.wasm"))),
      );
    }
    const empty = await startServer({ store, rateLimit: 0, webDir: join(dir, "nothing") });
    try {
      const res = await fetch(`${empty.base}/verify/`);
      assert.equal(res.status, 503);
      const e = (await res.json()) as { code: string; message: string };
      assert.equal(e.code, "WEB_NOT_BUILT");
      assert.match(e.message, /npm ci/);
    } finally {
      await empty.app.close();
    }
  } finally {
    await server.app.close();
    await installed.app.close();
    await store.close();
  }
});

test("interop: npm pack ships the built page (index.html, page.js), not its source map", { timeout: 300_000 }, () => {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["pack", "--dry-run", "--json"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 280_000,
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  assert.equal(r.status, 0, r.stderr);
  const [info] = JSON.parse(r.stdout) as { files: { path: string }[] }[];
  const web = info!.files
    .map((f) => f.path)
    .filter((p) => p.startsWith("dist/web/"))
    .sort();
  assert.deepEqual(web, ["dist/web/index.html", "dist/web/page.js"]);
});
