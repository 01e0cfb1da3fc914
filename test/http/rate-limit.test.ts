/**
 * The request budget of the HTTP API over real sockets on 127.0.0.1: one budget per client
 * address for every request (reads, writes, refused ones, unknown routes), spent before a token
 * is compared, answered `429 RATE_LIMITED` with `Retry-After`, and never chosen by forwarding
 * headers.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { freshDir, makeRegistry, removeDir, startServer, TOKEN } from "../web/support.js";

let dir: string;
let store: NameStore;

before(() => {
  dir = freshDir("ssgkr-http-limit-");
  store = makeRegistry(dir, 12);
});

after(async () => {
  await store?.close();
  if (dir) removeDir(dir);
});

interface Answer {
  status: number;
  code: unknown;
  message: unknown;
  retryAfter: string | null;
}

async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, code: json.code, message: json.message, retryAfter: res.headers.get("retry-after") };
}

const webDir = () => join(dir, "no-page");

test("rate limit: N + k wrong-token writes get at most N answers other than 429; the client's next read is 429 with Retry-After", async () => {
  const N = 4;
  const k = 8;
  const srv = await startServer({ store, token: TOKEN, webDir: webDir(), rateLimit: N });
  try {
    const answers: Answer[] = [];
    for (let i = 0; i < N + k; i++)
      answers.push(
        await call(srv.base, "PUT", "/v1/records/guess", { authorization: `Bearer guess-${i}` }, { value: "x" }),
      );
    const other = answers.filter((a) => a.status !== 429);
    assert.ok(
      other.length <= N,
      `at most ${N} of ${N + k} answers are not 429: ${answers.map((a) => a.status).join(" ")}`,
    );
    assert.ok(
      other.every((a) => a.status === 403 && a.code === "FORBIDDEN"),
      "the answers within the budget compare the token",
    );
    for (const a of answers.filter((x) => x.status === 429)) {
      assert.equal(a.code, "RATE_LIMITED");
      assert.equal(typeof a.message, "string");
      assert.match(a.retryAfter ?? "", /^\d+$/, "429 says when to retry");
    }
    assert.equal(
      answers.filter((a) => a.status === 429).length,
      k,
      "every request past the budget is refused before its token is compared",
    );
    const read = await call(srv.base, "GET", "/v1/root");
    assert.equal(read.status, 429, "reads and writes share one budget");
    assert.equal(read.code, "RATE_LIMITED");
    assert.match(read.retryAfter ?? "", /^\d+$/);
    const good = await call(srv.base, "PUT", "/v1/records/guess", { authorization: `Bearer ${TOKEN}` }, { value: "x" });
    assert.equal(good.status, 429, "past the budget even the right token is not compared");
  } finally {
    await srv.app.close();
  }
});

test("rate limit: 401s, unknown routes, URLs the router refuses and reads all count against the same budget", async () => {
  const srv = await startServer({ store, token: TOKEN, webDir: webDir(), rateLimit: 4 });
  try {
    assert.equal((await call(srv.base, "PUT", "/v1/records/x", {}, { value: "x" })).status, 401);
    assert.equal((await call(srv.base, "GET", "/v1/no-such-route")).status, 404);
    const badUrl = await call(srv.base, "GET", "/v1/records/%E0%A4%A/proof");
    assert.deepEqual(
      [badUrl.status, badUrl.code, typeof badUrl.message],
      [400, "BAD_INPUT", "string"],
      "answered in the API's error shape",
    );
    assert.equal((await call(srv.base, "GET", "/v1/root")).status, 200);
    const next = await call(srv.base, "GET", "/v1/no-such-route");
    assert.deepEqual([next.status, next.code], [429, "RATE_LIMITED"]);
    const nextBad = await call(srv.base, "GET", "/v1/records/%ZZ");
    assert.deepEqual(
      [nextBad.status, nextBad.code],
      [429, "RATE_LIMITED"],
      "a URL the router refuses is refused by the budget first",
    );
    assert.match(nextBad.retryAfter ?? "", /^\d+$/);
  } finally {
    await srv.app.close();
  }
});

test("rate limit: forwarding headers never choose the client", async () => {
  const srv = await startServer({ store, webDir: webDir(), rateLimit: 2 });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const spoof = {
        "x-forwarded-for": `10.0.0.${i + 1}`,
        "x-real-ip": `10.0.1.${i + 1}`,
        forwarded: `for=10.0.2.${i + 1}`,
      };
      statuses.push((await call(srv.base, "GET", "/v1/root", spoof)).status);
    }
    assert.deepEqual(
      statuses,
      [200, 200, 429, 429, 429],
      "one budget for the socket's address, whatever the headers say",
    );
  } finally {
    await srv.app.close();
  }
});
