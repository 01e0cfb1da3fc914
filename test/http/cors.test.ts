/**
 * CORS headers of the HTTP API over real sockets on 127.0.0.1: with one allowed origin, every
 * response says `Vary: Origin` (no Origin header, another origin, errors, unknown routes, 429s),
 * so a shared cache never serves a variant made for one origin to another; only the allowed
 * origin gets `Access-Control-Allow-Origin`.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { freshDir, makeRegistry, removeDir, startServer, TOKEN } from "../web/support.js";

const ORIGIN = "https://good.example";
let dir: string;
let store: NameStore;

before(() => {
  dir = freshDir("ssgkr-http-cors-");
  store = makeRegistry(dir, 12);
});

after(async () => {
  await store?.close();
  if (dir) removeDir(dir);
});

const varies = (h: Headers) =>
  (h.get("vary") ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .includes("origin");

test("cors: with --cors ORIGIN every response carries Vary: Origin, whatever the Origin header and the status", async () => {
  const cases: [string, string, string, Record<string, string>, number, string | null][] = [
    ["read without Origin", "GET", "/v1/root", {}, 200, null],
    ["read from another origin", "GET", "/v1/root", { origin: "https://evil.example" }, 200, null],
    ["read from the allowed origin", "GET", "/v1/root", { origin: ORIGIN }, 200, ORIGIN],
    ["unknown route", "GET", "/v1/nothing", {}, 404, null],
    ["write without a token", "PUT", "/v1/records/x", {}, 401, null],
    [
      "write with a wrong token",
      "DELETE",
      "/v1/records/x",
      { authorization: "Bearer wrong", origin: "https://evil.example" },
      403,
      null,
    ],
    ["bad query", "GET", "/v1/history?limit=-1", {}, 400, null],
    ["URL too long", "GET", `/v1/records/${"a".repeat(5000)}`, {}, 414, null],
    ["page not built", "GET", "/verify/", {}, 503, null],
    ["redirect", "GET", "/verify", {}, 302, null],
    ["bad percent-encoding", "GET", "/v1/records/%E0%A4%A/proof", {}, 400, null],
    ["preflight", "OPTIONS", "/v1/records/x", { origin: ORIGIN, "access-control-request-method": "PUT" }, 204, ORIGIN],
  ];
  // A budget of exactly the cases: the next request gets 429.
  const srv = await startServer({
    store,
    token: TOKEN,
    webDir: join(dir, "no-page"),
    rateLimit: cases.length,
    cors: ORIGIN,
  });
  try {
    for (const [what, method, path, headers, status, allow] of cases) {
      const res = await fetch(srv.base + path, { method, headers, redirect: "manual" });
      await res.arrayBuffer();
      assert.equal(res.status, status, what);
      assert.ok(varies(res.headers), `${what}: Vary: Origin (got ${JSON.stringify(res.headers.get("vary"))})`);
      assert.equal(res.headers.get("access-control-allow-origin"), allow, what);
    }
    // The budget is spent: the 429s vary too.
    const limited = await fetch(`${srv.base}/v1/root`);
    assert.equal(limited.status, 429);
    assert.ok(varies(limited.headers), "429: Vary: Origin");
    assert.equal(limited.headers.get("access-control-allow-origin"), null);
    const limitedGood = await fetch(`${srv.base}/v1/root`, { headers: { origin: ORIGIN } });
    assert.equal(limitedGood.status, 429);
    assert.ok(varies(limitedGood.headers), "429 to the allowed origin: Vary: Origin");
    assert.equal(limitedGood.headers.get("access-control-allow-origin"), ORIGIN, "the allowed origin can read its 429");
  } finally {
    await srv.app.close();
  }
});

test("cors: with --cors '*' every response allows any origin; without --cors there are no CORS headers", async () => {
  const any = await startServer({ store, webDir: join(dir, "no-page"), rateLimit: 0, cors: "*" });
  const off = await startServer({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    for (const headers of [{}, { origin: "https://evil.example" }] as Record<string, string>[]) {
      for (const path of ["/v1/root", "/v1/nothing"]) {
        const res = await fetch(any.base + path, { headers });
        await res.arrayBuffer();
        assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
      }
    }
    const res = await fetch(`${off.base}/v1/root`, { headers: { origin: ORIGIN } });
    await res.arrayBuffer();
    assert.equal(res.headers.get("access-control-allow-origin"), null);
  } finally {
    await any.app.close();
    await off.app.close();
  }
});
