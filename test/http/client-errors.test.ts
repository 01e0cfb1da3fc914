/**
 * Bytes Node's HTTP parser refuses before any route are answered in the API's error shape
 * `{code, message}` and the connection closes: a body that stops arriving (`REQUEST_TIMEOUT` 408,
 * here with a 1.5 s limit instead of 60 s), a header block over 16 KiB (`HEADERS_TOO_LARGE` 431)
 * and a `Content-Length` that is no number (`BAD_HTTP` 400).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { freshDir, makeRegistry, removeDir, startServer } from "../web/support.js";
import type { NameStore } from "../../src/registry/store/name-store.js";

let dir: string;
let store: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;

before(async () => {
  dir = freshDir("ssgkr-client-errors-");
  store = makeRegistry(dir, 16);
  srv = await startServer({ store, rateLimit: 0, requestTimeoutMs: 1500 });
});

after(async () => {
  await srv?.app.close();
  await store?.close();
  if (dir) removeDir(dir);
});

/** Sends `bytes` on a raw connection and reads until the server closes it (at most `ms`). */
function raw(bytes: string, ms = 15_000): Promise<{ text: string; ms: number }> {
  const { port } = new URL(srv.base);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), "127.0.0.1", () => s.write(bytes));
    let text = "";
    s.setEncoding("utf8");
    s.on("data", (d: string) => (text += d));
    s.on("error", () => undefined);
    s.on("close", () => resolve({ text, ms: performance.now() - t0 }));
    setTimeout(() => {
      s.destroy();
      reject(new Error(`still open after ${ms} ms: ${text}`));
    }, ms).unref();
  });
}

/** The status line and the JSON body of an answer. */
function answer(text: string): { status: number; body: { code: string; message: string } } {
  const [head, body] = text.split("\r\n\r\n");
  return { status: Number(head!.split(" ")[1]), body: JSON.parse(body!) };
}

test("a body that stops arriving: 408 REQUEST_TIMEOUT in the API's shape, then the connection closes", async () => {
  const r = await raw(
    'POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"statement":',
  );
  const a = answer(r.text);
  assert.equal(a.status, 408);
  assert.equal(a.body.code, "REQUEST_TIMEOUT");
  assert.match(a.body.message, /did not arrive whole within 1\.5 s/);
  assert.ok(r.ms < 10_000, `closed after ${r.ms.toFixed(0)} ms`);
});

test("a header block over 16 KiB: 431 HEADERS_TOO_LARGE; a Content-Length that is no number: 400 BAD_HTTP", async () => {
  const big = answer((await raw(`GET /v1/root HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)).text);
  assert.equal(big.status, 431);
  assert.equal(big.body.code, "HEADERS_TOO_LARGE");
  const bad = answer((await raw("POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")).text);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, "BAD_HTTP");
  // and the server goes on answering
  assert.equal((await fetch(`${srv.base}/v1/root`)).status, 200);
});
