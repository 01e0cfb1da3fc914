/**
 * The verifier page in a real browser: headless Chromium (Debian's package) driven by
 * puppeteer-core loads /verify from the API on 127.0.0.1, fetches proofs and verifies them with
 * the WASM kernels. Each verdict must equal Node's (`checkProofBody` on the same inputs), and a
 * screenshot of each verdict page is saved (SSGKR_SCREENSHOTS=DIR keeps them; default: the
 * test's temp dir, removed afterwards). Run with `npm run test:browser` (a separate CI step).
 *
 * The registry is name-keyed (record-leaf-v2). Cases: honest membership ACCEPT, absence (deleted
 * record, and a name never registered) ACCEPT, a pasted update proof ACCEPT,
 * one flipped proof byte REJECT, a wrong trusted root REJECT, another name's proof REJECT (NAME_MISMATCH, naming only the proof's name); an unpinned ACCEPT in its own state (data-trust=unpinned, ACCEPT — UNPINNED, another colour).
 *
 * Links and the pinned root: a second registry (left-pad → an evil value, so another root) is
 * served by a second server on 127.0.0.1 (CORS open, as a hostile registry would be). With the
 * genuine root pinned by the Pin button, a crafted link naming that server and its root ends
 * REJECT ROOT_CONFLICT naming both roots (never ACCEPT) until the user chooses; an unpinned link
 * root and a link root equal to the pinned one ACCEPT; proofs from the second server are marked
 * as coming from another server. These run in their own browser contexts (own local storage).
 *
 * Profile v3 proofs about a name (`profile=v3` in the link): fetched without a request and accepted
 * from the statement alone; a flipped byte and a lied value get Node's codes. Zero-knowledge
 * proofs (`zk=1` in the link): fetched with `?profile=v3&zk=1`, accepted, and the verdict says the
 * proof is zero-knowledge (`data-profile="v3-zk"`); a flipped byte and a lied value get Node's codes.
 *
 * Profile v3 blocks (a depth-16 registry of npm records, six updates of every op): block.json and
 * block.bin chosen as files are accepted against the trusted root (the root before the block);
 * pasted tampered ones (an update's value, a truncated proof, a wrong root after the block) are
 * rejected with Node's codes; a battery of altered block bodies gets Node's verdicts; a link root
 * that conflicts with the pinned one ends a block check REJECT ROOT_CONFLICT too.
 */
import { after, before, test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { checkProofBody, base64Bytes, bytesBase64 } from "../../src/counterparty/body.js";
import { checkBlockBody } from "../../src/counterparty/block-body.js";
import { formatRoot, parseRoot } from "../../src/counterparty/claim.js";
import type { NameStore } from "../../src/registry/store/name-store.js";
import {
  buildPage,
  freshDir,
  launchChromium,
  makeRegistry,
  makeV3Block,
  RECORDS,
  removeDir,
  startServer,
  TOKEN,
  V3_TEST_UPDATES,
  type V3BlockFiles,
} from "./support.js";

/** Runs only in the browser step (`npm run test:browser`, which sets SSGKR_BROWSER_TESTS=1). */
const ENABLED = process.env.SSGKR_BROWSER_TESTS === "1";
const test = (name: string, fn: () => Promise<void>) =>
  nodeTest(name, { skip: ENABLED ? false : "browser tests run in their own step: npm run test:browser" }, fn);

let dir: string;
let shots: string;
let store: NameStore;
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let rootText: string;
let evilStore: NameStore;
let evilServer: Awaited<ReturnType<typeof startServer>>;
let evilRootText: string;
let block: V3BlockFiles;

const EVIL_VALUE = "https://evil.example/left-pad.tgz";

before(async () => {
  if (!ENABLED) return;
  dir = freshDir("ssgkr-browser-");
  shots = process.env.SSGKR_SCREENSHOTS ?? join(dir, "screenshots");
  mkdirSync(shots, { recursive: true });
  store = makeRegistry(dir);
  const webDir = await buildPage(dir);
  server = await startServer({ store, webDir, token: TOKEN, rateLimit: 0 });
  rootText = formatRoot(store.head().root);
  evilStore = makeRegistry(dir, 24, { sub: "evil-db", liveValue: EVIL_VALUE });
  evilServer = await startServer({ store: evilStore, webDir, token: TOKEN, rateLimit: 0, cors: "*" });
  evilRootText = formatRoot(evilStore.head().root);
  block = await makeV3Block(dir, { depth: 16, records: 40, updates: V3_TEST_UPDATES });
  browser = await launchChromium(dir);
});

after(async () => {
  await browser?.close();
  await server?.app.close();
  await evilServer?.app.close();
  await store?.close();
  await evilStore?.close();
  if (dir) removeDir(dir);
});

interface PageVerdict {
  verdict: string;
  code: string;
  backend: string;
  verifyMs: string;
  profile: string;
  text: string;
}

async function verdictOf(page: Page): Promise<PageVerdict> {
  await page.waitForSelector(
    "#verdict[data-verdict=ACCEPT], #verdict[data-verdict=REJECT], #verdict[data-verdict='NO PROOF']",
    { timeout: 60_000 },
  );
  return page.$eval("#verdict", (el) => {
    const d = (el as HTMLElement).dataset;
    return {
      verdict: d.verdict ?? "",
      code: d.code ?? "",
      backend: d.backend ?? "",
      verifyMs: d.verifyMs ?? "",
      profile: d.profile ?? "",
      text: (el as HTMLElement).innerText,
    };
  });
}

/** Opens the page for `name` with the trusted root, optionally replacing the proof the server sends. */
async function check(
  label: string,
  name: string,
  root: string,
  replace?: (body: Record<string, unknown>) => Record<string, unknown>,
  profile: "v1" | "v3" | "v3-zk" = "v1",
): Promise<{ v: PageVerdict; body: Record<string, unknown> }> {
  const page = await browser.newPage();
  const query = profile === "v3-zk" ? "?profile=v3&zk=1" : profile === "v3" ? "?profile=v3" : "";
  const proofUrl = `${server.base}/v1/records/${encodeURIComponent(name)}/proof${query}`;
  let served: Record<string, unknown> | undefined;
  await page.setRequestInterception(true);
  page.on("request", (req) => {
    if (!req.url().startsWith(server.base)) return void req.abort();
    if (req.url() !== proofUrl) return void req.continue();
    void (async () => {
      const res = await fetch(proofUrl);
      let body = (await res.json()) as Record<string, unknown>;
      if (replace) body = replace(body);
      served = body;
      await req.respond({ status: res.status, contentType: "application/json", body: JSON.stringify(body) });
    })();
  });
  await page.goto(
    `${server.base}/verify/?${new URLSearchParams({ name, root, auto: "1", ...(profile === "v3" ? { profile } : profile === "v3-zk" ? { zk: "1" } : {}) })}`,
  );
  const v = await verdictOf(page);
  await page.screenshot({ path: join(shots, `${label}.png`), fullPage: true });
  await page.close();
  assert.ok(served, "the page fetched the proof");
  return { v, body: served! };
}

const proofOf = async (name: string) =>
  (await (await fetch(`${server.base}/v1/records/${encodeURIComponent(name)}/proof`)).json()) as Record<
    string,
    unknown
  >;

function nodeVerdict(body: unknown, name: string | undefined, root: string): { verdict: string; code: string } {
  const v = checkProofBody(body, name, parseRoot(root));
  return { verdict: v.ok ? "ACCEPT" : "REJECT", code: v.code ?? "" };
}

test("browser: an honest membership proof is accepted with the WASM kernels, as in Node", async () => {
  const { v, body } = await check("membership-accept", RECORDS.live, rootText);
  assert.equal(v.verdict, "ACCEPT", v.text);
  assert.equal(v.backend, "wasm", "the page is cross-origin isolated and loaded the kernel module asynchronously");
  assert.match(v.text, /"left-pad" is registered with value "https:\/\/github.com\/left-pad\/left-pad"/);
  assert.match(v.text, /verify \d+ ms/);
  assert.deepEqual(nodeVerdict(body, RECORDS.live, rootText), { verdict: "ACCEPT", code: "" });
});

test("browser: absence proofs (a deleted record, a name never registered) are accepted, as in Node", async () => {
  const { v, body } = await check("absence-accept", RECORDS.deleted, rootText);
  assert.equal(v.verdict, "ACCEPT", v.text);
  assert.match(v.text, /"gone" is not registered/);
  assert.match(v.text, /record-leaf-v2: the root commits to names/);
  assert.deepEqual(nodeVerdict(body, RECORDS.deleted, rootText), { verdict: "ACCEPT", code: "" });
  const never = await check("never-registered-accept", "never-registered", rootText);
  assert.equal(never.v.verdict, "ACCEPT", never.v.text);
  assert.match(never.v.text, /"never-registered" is not registered/);
  assert.deepEqual(nodeVerdict(never.body, "never-registered", rootText), { verdict: "ACCEPT", code: "" });
});

test("browser: a profile v3 proof (profile=v3 in the link) is fetched without its path and accepted from the statement alone; a flipped byte and a lied value are rejected with Node's codes", async () => {
  const { v, body } = await check("v3-membership-accept", RECORDS.live, rootText, undefined, "v3");
  assert.equal(body.profile, "v3");
  assert.equal(body.request, undefined, "the page received no request: no path");
  assert.equal(v.verdict, "ACCEPT", v.text);
  assert.match(v.text, /profile v3: checked from the statement alone/);
  assert.deepEqual(nodeVerdict(body, RECORDS.live, rootText), { verdict: "ACCEPT", code: "" });
  const absent = await check("v3-absence-accept", "never-registered", rootText, undefined, "v3");
  assert.equal(absent.v.verdict, "ACCEPT", absent.v.text);
  const flip = (b: Record<string, unknown>) => {
    const bytes = base64Bytes(b.proof);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    return { ...b, proof: bytesBase64(bytes) };
  };
  const lie = (b: Record<string, unknown>) => ({
    ...b,
    statement: { ...(b.statement as Record<string, unknown>), value: EVIL_VALUE },
  });
  for (const [label, alter] of [
    ["v3-flipped-reject", flip],
    ["v3-lied-value-reject", lie],
  ] as const) {
    const r = await check(label, RECORDS.live, rootText, alter, "v3");
    const n = nodeVerdict(r.body, RECORDS.live, rootText);
    assert.equal(n.verdict, "REJECT", label);
    assert.deepEqual([r.v.verdict, r.v.code], ["REJECT", n.code], `${label}: ${r.v.text}`);
  }
});

test("browser: a zero-knowledge proof (zk=1 in the link) is fetched as v3-zk and accepted; the verdict says it is zero-knowledge; a flipped byte and a lied value are rejected with Node's codes", async () => {
  const { v, body } = await check("v3zk-absence-accept", "never-registered", rootText, undefined, "v3-zk");
  assert.deepEqual([body.profile, body.zk, body.request], ["v3", true, undefined]);
  assert.equal(v.verdict, "ACCEPT", v.text);
  assert.equal(v.profile, "v3-zk");
  assert.match(v.text, /Zero knowledge \(profile v3-zk\): the proof reveals nothing about the name's path/);
  assert.deepEqual(nodeVerdict(body, "never-registered", rootText), { verdict: "ACCEPT", code: "" });
  const member = await check("v3zk-membership-accept", RECORDS.live, rootText, undefined, "v3-zk");
  assert.deepEqual([member.v.verdict, member.v.profile], ["ACCEPT", "v3-zk"], member.v.text);
  const plain = await check("v3-membership-not-zk", RECORDS.live, rootText, undefined, "v3");
  assert.equal(plain.v.profile, "v3");
  assert.doesNotMatch(plain.v.text, /Zero knowledge/);
  const flip = (b: Record<string, unknown>) => {
    const bytes = base64Bytes(b.proof);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    return { ...b, proof: bytesBase64(bytes) };
  };
  const lie = (b: Record<string, unknown>) => ({
    ...b,
    statement: { ...(b.statement as Record<string, unknown>), value: EVIL_VALUE },
  });
  for (const [label, alter] of [
    ["v3zk-flipped-reject", flip],
    ["v3zk-lied-value-reject", lie],
  ] as const) {
    const r = await check(label, RECORDS.live, rootText, alter, "v3-zk");
    const n = nodeVerdict(r.body, RECORDS.live, rootText);
    assert.equal(n.verdict, "REJECT", label);
    assert.deepEqual([r.v.verdict, r.v.code], ["REJECT", n.code], `${label}: ${r.v.text}`);
    assert.doesNotMatch(r.v.text, /Zero knowledge/);
  }
});

test("browser: one flipped proof byte is rejected with Node's code", async () => {
  const flip = (b: Record<string, unknown>) => {
    const bytes = base64Bytes(b.proof);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    return { ...b, proof: bytesBase64(bytes) };
  };
  const { v, body } = await check("flipped-byte-reject", RECORDS.live, rootText, flip);
  assert.equal(v.verdict, "REJECT", v.text);
  const n = nodeVerdict(body, RECORDS.live, rootText);
  assert.equal(n.verdict, "REJECT");
  assert.equal(v.code, n.code, "the same rejection code as Node");
});

test("browser: a wrong trusted root is rejected (ROOT_NOT_TRUSTED), as in Node", async () => {
  const wrong = parseRoot(rootText);
  wrong[3] = (wrong[3]! + 1) % 2130706433;
  const wrongText = `[${Array.from(wrong).join(", ")}]`;
  const { v, body } = await check("wrong-root-reject", RECORDS.live, wrongText);
  assert.equal(v.verdict, "REJECT", v.text);
  assert.equal(v.code, "ROOT_NOT_TRUSTED");
  assert.deepEqual(nodeVerdict(body, RECORDS.live, wrongText), { verdict: "REJECT", code: "ROOT_NOT_TRUSTED" });
});

test("browser: another name's proof is rejected (NAME_MISMATCH), as in Node, and its statement line names only the proof's name", async () => {
  const other = await proofOf(RECORDS.scoped);
  const { v, body } = await check("other-name-reject", RECORDS.live, rootText, () => other);
  assert.equal(v.verdict, "REJECT", v.text);
  assert.equal(v.code, "NAME_MISMATCH");
  assert.match(v.text, /Claimed: "@scope\/pkg" is registered/);
  assert.doesNotMatch(v.text, /Claimed: "left-pad"/);
  assert.deepEqual(nodeVerdict(body, RECORDS.live, rootText), { verdict: "REJECT", code: "NAME_MISMATCH" });
});

test("browser: an unpinned ACCEPT (no trusted root) is shown as its own state, not as a pinned ACCEPT", async () => {
  const trustOf = async (root: string) => {
    const page = await browser.newPage();
    await page.goto(
      `${server.base}/verify/?${new URLSearchParams({ name: RECORDS.live, ...(root ? { root } : {}), auto: "1" })}`,
    );
    const v = await verdictOf(page);
    const look = await page.$eval("#verdict", (el) => ({
      trust: (el as HTMLElement).dataset.trust ?? "",
      word: el.querySelector(".word")!.textContent ?? "",
      background: getComputedStyle(el).backgroundColor,
    }));
    await page.screenshot({ path: join(shots, `accept-${root ? "pinned" : "unpinned"}.png`), fullPage: true });
    await page.close();
    return { v, ...look };
  };
  const pinned = await trustOf(rootText);
  const unpinned = await trustOf("");
  assert.equal(pinned.v.verdict, "ACCEPT", pinned.v.text);
  assert.equal(unpinned.v.verdict, "ACCEPT", unpinned.v.text);
  assert.deepEqual([pinned.trust, pinned.word], ["pinned", "ACCEPT"]);
  assert.deepEqual([unpinned.trust, unpinned.word], ["unpinned", "ACCEPT — UNPINNED"]);
  assert.notEqual(unpinned.background, pinned.background, "another colour");
  assert.match(unpinned.v.text, /Not checked against a root you trust/);
  assert.match(unpinned.v.text, /Matches its own statement: "left-pad" is registered/);
});

test("browser: a pasted proof of a write's new state (GET the proof path a PUT answers) is accepted against the write's root; a tampered one is not", async () => {
  const res = await fetch(`${server.base}/v1/records/${encodeURIComponent("new-pkg")}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ value: "https://github.com/x/new-pkg" }),
  });
  assert.equal(res.status, 200);
  const written = (await res.json()) as { root: string; proof: string };
  const oldRoot = written.root;
  const update = (await (await fetch(`${server.base}${written.proof}`)).json()) as Record<string, unknown>;
  const tampered = {
    ...update,
    statement: { ...(update.statement as object), value: "https://github.com/evil/new-pkg" },
  };
  for (const [label, body, want] of [
    ["update-accept", update, "ACCEPT"],
    ["update-tampered-reject", tampered, "REJECT"],
  ] as const) {
    const page = await browser.newPage();
    await page.goto(`${server.base}/verify/`);
    await page.$eval("#root", (el, r) => ((el as HTMLTextAreaElement).value = r), oldRoot);
    await page.$eval("#pasted", (el, t) => ((el as HTMLTextAreaElement).value = t), JSON.stringify(body));
    await page.click("#verify-pasted");
    const v = await verdictOf(page);
    await page.screenshot({ path: join(shots, `${label}.png`), fullPage: true });
    await page.close();
    assert.equal(v.verdict, want, v.text);
    const n = nodeVerdict(body, undefined, oldRoot);
    assert.deepEqual({ verdict: v.verdict, code: v.code }, n);
  }
});

test("browser: verdicts equal Node's on a battery of altered bodies (bytes, fields, names, roots, kinds)", async () => {
  const live = await proofOf(RECORDS.live);
  const gone = await proofOf(RECORDS.deleted);
  const rootText = (live.statement as { root: string }).root; // after the update test's write
  assert.deepEqual(parseRoot(rootText), Uint32Array.from(store.head().root));
  const bytes = base64Bytes(live.proof);
  const flipAt = (i: number) => {
    const b = bytes.slice();
    b[i % b.length]! ^= 1 << (i % 8);
    return { ...live, proof: bytesBase64(b) };
  };
  const st = live.statement as Record<string, unknown>;
  const rq = live.request as Record<string, unknown>;
  const cases: [string, unknown, string | undefined][] = [
    ["honest", live, RECORDS.live],
    ["absent honest", gone, RECORDS.deleted],
    ...[0, 7, 64, 1000, 50_000, 120_000, bytes.length - 1].map((i): [string, unknown, string] => [
      `flip byte ${i}`,
      flipAt(i),
      RECORDS.live,
    ]),
    ["truncated", { ...live, proof: bytesBase64(bytes.subarray(0, bytes.length - 4)) }, RECORDS.live],
    ["extended", { ...live, proof: bytesBase64(Uint8Array.from([...bytes, 0, 0, 0, 0])) }, RECORDS.live],
    ["other value", { ...live, statement: { ...st, value: "https://github.com/x/y" } }, RECORDS.live],
    ["fields value", { ...live, statement: { ...st, value: { fields: [1] } } }, RECORDS.live],
    ["absent claimed", { ...live, statement: { ...st, kind: "nonmembership", absent: true } }, RECORDS.live],
    ["other name", live, RECORDS.scoped],
    ["key changed", { ...live, request: { ...rq, key: 5 } }, RECORDS.live],
    [
      "sibling changed",
      {
        ...live,
        request: {
          ...rq,
          siblings: (rq.siblings as number[][]).map((s, i) => (i === 3 ? [s[0]! + 1, ...s.slice(1)] : s)),
        },
      },
      RECORDS.live,
    ],
    ["value digest changed", { ...live, request: { ...rq, value_digest: [1, 2, 3, 4, 5, 6, 7, 8] } }, RECORDS.live],
    ["request malformed", { ...live, request: { ...rq, depth: "24" } }, RECORDS.live],
    ["no proof", { statement: st, request: rq }, RECORDS.live],
    ["not an object", 42, RECORDS.live],
  ];
  const page = await browser.newPage();
  await page.goto(`${server.base}/verify/`);
  const inBrowser = await page.evaluate(
    async (list, root) => {
      const s = (globalThis as any).ssgkr;
      await s.ready();
      return list.map(([, body, name]) => {
        const v = s.checkProofBody(body, name ?? undefined, s.parseRoot(root));
        return { ok: v.ok as boolean, code: (v.code ?? "") as string };
      });
    },
    cases.map(([l, b, n]) => [l, b, n ?? null]) as [string, unknown, string | null][],
    rootText,
  );
  await page.close();
  const codes = new Set<string>();
  cases.forEach(([label, body, name], i) => {
    const n = checkProofBody(body, name, parseRoot(rootText));
    assert.deepEqual(inBrowser[i], { ok: n.ok, code: n.code ?? "" }, label);
    codes.add(n.code ?? "ACCEPT");
  });
  assert.equal(inBrowser.filter((v) => v.ok).length, 2, "only the two honest bodies are accepted");
  assert.ok(codes.size >= 8, `distinct verdicts: ${[...codes].join(", ")}`);
});

interface LinkVerdict extends PageVerdict {
  /** Every `data-verdict` value the page set, in order (recorded from the first script on). */
  seen: string[];
  foreignServer: string | undefined;
  pinnedRoot: string | undefined;
  linkRoot: string | undefined;
  rootField: string;
  stored: string | null;
  conflictShown: boolean;
}

/** A page in its own browser context (its own local storage), recording every verdict the page sets. */
async function isolatedPage(): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.evaluateOnNewDocument(() => {
    const seen: string[] = [];
    (globalThis as any).__verdicts = seen;
    new MutationObserver((list) => {
      for (const m of list)
        if (m.target instanceof HTMLElement && m.target.id === "verdict") seen.push(m.target.dataset.verdict ?? "");
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-verdict"] });
  });
  return { page, close: () => context.close() };
}

/** Pins `root` with the page's own Pin button. */
async function pinWithButton(page: Page, root: string): Promise<void> {
  await page.goto(`${server.base}/verify/`);
  await page.$eval("#root", (el, r) => ((el as HTMLTextAreaElement).value = r), root);
  await page.click("#pin");
  await page.waitForFunction(() => document.getElementById("pinned")!.textContent === "pinned in this browser", {
    timeout: 10_000,
  });
}

async function linkVerdict(page: Page): Promise<LinkVerdict> {
  const v = await verdictOf(page);
  const rest = await page.evaluate(() => {
    const box = document.getElementById("verdict")!;
    return {
      seen: [...((globalThis as any).__verdicts as string[])],
      foreignServer: box.dataset.foreignServer,
      pinnedRoot: box.dataset.pinnedRoot,
      linkRoot: box.dataset.linkRoot,
      rootField: (document.getElementById("root") as HTMLTextAreaElement).value,
      stored: localStorage.getItem("ssgkr.trustedRoot"),
      conflictShown: ((c) => c !== null && !c.hidden && c.getBoundingClientRect().height > 0)(
        document.getElementById("conflict"),
      ),
    };
  });
  return { ...v, ...rest };
}

/** The genuine registry's current root (the update test writes to it). */
const currentRoot = () => formatRoot(store.head().root);

const link = (params: Record<string, string>) => `${server.base}/verify/?${new URLSearchParams(params)}`;

test("browser: a crafted link (another server, its root, auto=1) does not override the pinned root: REJECT ROOT_CONFLICT naming both roots, never ACCEPT", async () => {
  const rootNow = currentRoot();
  assert.notEqual(evilRootText, rootNow);
  const { page, close } = await isolatedPage();
  try {
    await pinWithButton(page, rootNow);
    await page.goto(link({ server: evilServer.base, root: evilRootText, name: RECORDS.live, auto: "1" }));
    const v = await linkVerdict(page);
    await page.screenshot({ path: join(shots, "link-root-conflict.png"), fullPage: true });
    assert.equal(v.verdict, "REJECT", v.text);
    assert.equal(v.code, "ROOT_CONFLICT");
    assert.ok(v.text.includes(rootNow) && v.text.includes(evilRootText), `both roots named: ${v.text}`);
    assert.equal(v.pinnedRoot, rootNow);
    assert.equal(v.linkRoot, evilRootText);
    assert.ok(!v.seen.includes("ACCEPT"), `verdicts set: ${v.seen.join(", ")}`);
    assert.doesNotMatch(v.text, /evil\.example/, "the other server's record is not shown");
    assert.equal(v.rootField, rootNow, "the pinned root fills the root field");
    assert.equal(v.stored, rootNow, "the pin is unchanged, in its hex form");
    assert.ok(v.conflictShown, "the conflict panel is visible");
    const panel = await page.$eval("#conflict", (el) => (el as HTMLElement).innerText);
    assert.ok(panel.includes(rootNow) && panel.includes(evilRootText), panel);
    assert.equal(v.foreignServer, evilServer.base, "the link's server is marked as another server");
    // Verify pressed again before choosing: still the conflict, never ACCEPT.
    await page.click("#verify");
    const again = await linkVerdict(page);
    assert.equal(again.code, "ROOT_CONFLICT");
    assert.ok(!again.seen.includes("ACCEPT"), `verdicts set: ${again.seen.join(", ")}`);

    // Keeping the pinned root: the other server's proof is checked against it and rejected.
    await page.click("#keep-pinned");
    assert.equal(await page.$eval("#verdict", (el) => (el as HTMLElement).dataset.verdict), "NONE");
    await page.click("#verify");
    const kept = await linkVerdict(page);
    await page.screenshot({ path: join(shots, "link-keep-pinned-reject.png"), fullPage: true });
    assert.equal(kept.verdict, "REJECT", kept.text);
    assert.equal(kept.code, "ROOT_NOT_TRUSTED");
    assert.equal(kept.foreignServer, evilServer.base);
    assert.ok(!kept.conflictShown);
    assert.ok(!kept.seen.includes("ACCEPT"), `verdicts set: ${kept.seen.join(", ")}`);
  } finally {
    await close();
  }
});

test("browser: choosing the link's root checks against it for this page only; the pin stays", async () => {
  const rootNow = currentRoot();
  const { page, close } = await isolatedPage();
  try {
    await pinWithButton(page, rootNow);
    await page.goto(link({ server: evilServer.base, root: evilRootText, name: RECORDS.live, auto: "1" }));
    assert.equal((await linkVerdict(page)).code, "ROOT_CONFLICT");
    await page.click("#use-link-root");
    await page.click("#verify");
    const v = await linkVerdict(page);
    await page.screenshot({ path: join(shots, "link-use-link-root.png"), fullPage: true });
    assert.equal(v.verdict, "ACCEPT", v.text);
    assert.ok(v.text.includes(EVIL_VALUE), v.text);
    assert.equal(v.foreignServer, evilServer.base);
    assert.match(
      v.text,
      new RegExp(
        `comes from ${evilServer.base.replace(/[.:/]/g, "\\$&")}, not from this page's server ${server.base.replace(/[.:/]/g, "\\$&")}`,
      ),
    );
    assert.equal(v.rootField, evilRootText);
    assert.equal(v.stored, rootNow, "choosing the link's root does not re-pin");
    await page.goto(`${server.base}/verify/`);
    assert.equal(
      await page.$eval("#root", (el) => (el as HTMLTextAreaElement).value),
      rootNow,
      "a fresh page loads the pinned root",
    );
  } finally {
    await close();
  }
});

test("browser: a link root equal to the pinned one (in another spelling) is no conflict and ACCEPTs", async () => {
  const rootNow = currentRoot();
  const { page, close } = await isolatedPage();
  try {
    await pinWithButton(page, rootNow);
    const spelled = parseRoot(rootNow).join(",");
    await page.goto(link({ root: spelled, name: RECORDS.live, auto: "1" }));
    const v = await linkVerdict(page);
    assert.equal(v.verdict, "ACCEPT", v.text);
    assert.match(v.text, /"left-pad" is registered with value "https:\/\/github.com\/left-pad\/left-pad"/);
    assert.ok(!v.conflictShown);
    assert.equal(v.foreignServer, undefined, "a proof from the page's own server is not marked");
    assert.doesNotMatch(v.text, /another server/);
    assert.equal(v.stored, rootNow);
  } finally {
    await close();
  }
});

test("browser: with nothing pinned a link's root is used as given; a proof from another server is marked as such", async () => {
  const rootNow = currentRoot();
  const { page, close } = await isolatedPage();
  try {
    await page.goto(link({ root: rootNow, name: RECORDS.live, auto: "1" }));
    const own = await linkVerdict(page);
    assert.equal(own.verdict, "ACCEPT", own.text);
    assert.equal(own.rootField, rootNow);
    assert.equal(own.stored, null, "a link never pins");
    assert.ok(!own.conflictShown);
    assert.equal(own.foreignServer, undefined);

    await page.goto(link({ server: evilServer.base, root: evilRootText, name: RECORDS.live, auto: "1" }));
    const other = await linkVerdict(page);
    await page.screenshot({ path: join(shots, "link-foreign-server.png"), fullPage: true });
    assert.equal(other.verdict, "ACCEPT", other.text);
    assert.ok(other.text.includes(EVIL_VALUE), other.text);
    assert.equal(other.foreignServer, evilServer.base);
    assert.match(
      other.text,
      /From another server: the proof comes from http:\/\/127\.0\.0\.1:\d+, not from this page's server/,
    );
    assert.equal(other.stored, null);

    await page.goto(link({ server: evilServer.base, name: "never-registered", root: evilRootText, auto: "1" }));
    const absent = await linkVerdict(page);
    assert.equal(absent.verdict, "ACCEPT", absent.text);
    assert.equal(absent.foreignServer, evilServer.base, "every verdict on another server's proof is marked");
  } finally {
    await close();
  }
});

test("browser: a pin saved in the list form [a, b, …] is read as the same root: shown in hex, no conflict with the hex link, ACCEPT", async () => {
  const rootNow = currentRoot();
  const listForm = `[${Array.from(parseRoot(rootNow)).join(", ")}]`;
  const { page, close } = await isolatedPage();
  try {
    await page.goto(`${server.base}/verify/`);
    await page.evaluate((v) => localStorage.setItem("ssgkr.trustedRoot", v), listForm);
    await page.goto(link({ root: rootNow, name: RECORDS.live, auto: "1" }));
    const v = await linkVerdict(page);
    assert.equal(v.verdict, "ACCEPT", v.text);
    assert.ok(!v.conflictShown, "the list-form pin and the hex link name one root");
    assert.equal(v.rootField, rootNow, "the pinned root is shown in hex");
    assert.equal(v.stored, listForm, "loading does not rewrite the pin");
    await page.goto(link({ root: evilRootText, name: RECORDS.live, auto: "1" }));
    const c = await linkVerdict(page);
    assert.equal(c.code, "ROOT_CONFLICT");
    assert.equal(c.pinnedRoot, rootNow, "the conflict names the list-form pin in hex");
  } finally {
    await close();
  }
});

/** Fills the block form (pasted text, or files when `files` is set) and returns the verdict. */
async function checkBlock(
  label: string,
  page: Page,
  form: { root: string; toRoot?: string; files?: boolean; blockJson?: string; proof?: string },
): Promise<PageVerdict & { kind: string; operation: string; trust: string }> {
  await page.$eval("#root", (el, r) => ((el as HTMLTextAreaElement).value = r), form.root);
  await page.$eval("#to-root", (el, r) => ((el as HTMLTextAreaElement).value = r), form.toRoot ?? "");
  if (form.files) {
    const json = (await page.$("#block-json-file"))!;
    const bin = (await page.$("#block-bin-file"))!;
    await (json as any).uploadFile(join(block.dir, "block.json"));
    await (bin as any).uploadFile(join(block.dir, "block.bin"));
  } else {
    await page.$eval("#block-json", (el, t) => ((el as HTMLTextAreaElement).value = t), form.blockJson ?? "");
    await page.$eval("#block-proof", (el, t) => ((el as HTMLTextAreaElement).value = t), form.proof ?? "");
  }
  await page.click("#verify-block");
  const v = await verdictOf(page);
  const more = await page.$eval("#verdict", (el) => ({
    kind: (el as HTMLElement).dataset.kind ?? "",
    operation: (el as HTMLElement).dataset.operation ?? "",
    trust: (el as HTMLElement).dataset.trust ?? "",
  }));
  await page.screenshot({ path: join(shots, `${label}.png`), fullPage: true });
  return { ...v, ...more };
}

test("browser: a v3 block (block.json and block.bin as files) is accepted against the trusted root with the WASM kernels; pasted tampered blocks are rejected with Node's codes", async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${server.base}/verify/`);
    const ok = await checkBlock("v3-block-accept", page, { root: block.fromRoot, files: true });
    assert.equal(ok.verdict, "ACCEPT", ok.text);
    assert.deepEqual([ok.kind, ok.trust, ok.backend], ["block", "pinned", "wasm"]);
    assert.ok(
      ok.text.includes(
        `block of 6 updates (2 insert, 2 replace, 1 delete, 1 restore; depth 16, leaf bound 31) takes root ${block.fromRoot} to root ${block.toRoot}`,
      ),
      ok.text,
    );
    assert.match(ok.text, /verify \d+ ms/);

    const proof = bytesBase64(block.proof);
    const tampered = JSON.parse(block.blockJson);
    tampered.updates[1].value = "https://evil.example/one";
    await page.goto(`${server.base}/verify/`);
    const cases: [string, { blockJson: string; proof: string; toRoot?: string }, string, string][] = [
      ["v3-block-pasted-accept", { blockJson: block.blockJson, proof, toRoot: block.toRoot }, "ACCEPT", ""],
      ["v3-block-tampered-reject", { blockJson: JSON.stringify(tampered), proof }, "REJECT", "PUBLIC_INPUTS_MISMATCH"],
      [
        "v3-block-truncated-reject",
        { blockJson: block.blockJson, proof: bytesBase64(block.proof.subarray(0, block.proof.length - 7)) },
        "REJECT",
        "DECODE_DeclaredLengthMismatch",
      ],
      [
        "v3-block-wrong-to-root-reject",
        { blockJson: block.blockJson, proof, toRoot: block.fromRoot },
        "REJECT",
        "PUBLIC_INPUTS_MISMATCH",
      ],
    ];
    for (const [label, form, verdict, code] of cases) {
      const v = await checkBlock(label, page, { root: block.fromRoot, ...form });
      assert.equal(v.verdict, verdict, `${label}: ${v.text}`);
      assert.equal(v.code, code, label);
      const n = checkBlockBody(
        { block: form.blockJson, proof: form.proof },
        { fromRoot: parseRoot(block.fromRoot), ...(form.toRoot ? { toRoot: parseRoot(form.toRoot) } : {}) },
      );
      assert.deepEqual(
        [n.ok ? "ACCEPT" : "REJECT", n.code ?? "", n.operation === undefined ? "" : String(n.operation)],
        [v.verdict, v.code, v.operation],
        `${label}: Node's verdict`,
      );
    }
    const unpinned = await checkBlock("v3-block-unpinned", page, { root: "", blockJson: block.blockJson, proof });
    assert.deepEqual([unpinned.verdict, unpinned.trust], ["ACCEPT", "unpinned"], unpinned.text);
    assert.match(unpinned.text, /ACCEPT — UNPINNED/);
  } finally {
    await page.close();
  }
});

test("browser: verdicts on altered block bodies equal Node's (checkBlockBody bundled in the page)", async () => {
  const proof = bytesBase64(block.proof);
  const obj = () => JSON.parse(block.blockJson) as Record<string, any>;
  const edit = (f: (b: Record<string, any>) => void) => {
    const b = obj();
    f(b);
    return b;
  };
  const flip = (i: number) => {
    const b = block.proof.slice();
    b[i]! ^= 1;
    return bytesBase64(b);
  };
  const cases: [string, unknown][] = [
    ["honest object", { block: obj(), proof }],
    ["honest text", { block: block.blockJson, proof }],
    ["swapped updates", { block: edit((b) => ([b.updates[1], b.updates[2]] = [b.updates[2], b.updates[1]])), proof }],
    ["op changed", { block: edit((b) => (b.updates[0].op = "replace")), proof }],
    ["update left out", { block: edit((b) => b.updates.splice(2, 1)), proof }],
    ["profile v2", { block: edit((b) => (b.profile = "v2")), proof }],
    ["depth changed", { block: edit((b) => (b.depth = 17)), proof }],
    ["fields value changed", { block: edit((b) => (b.updates[5].fields = [1, 2, 4])), proof }],
    ["flip byte 40", { block: obj(), proof: flip(40) }],
    ["flip byte near the end", { block: obj(), proof: flip(block.proof.length - 100) }],
    ["proof not base64", { block: obj(), proof: "%%%" }],
    ["block not JSON", { block: "{", proof }],
    ["not an object", 42],
  ];
  const page = await browser.newPage();
  await page.goto(`${server.base}/verify/`);
  const inBrowser = await page.evaluate(
    async (list, from, to) => {
      const s = (globalThis as any).ssgkr;
      await s.ready();
      return list.map(([, body]) => {
        const v = s.checkBlockBody(body, { fromRoot: s.parseRoot(from), toRoot: s.parseRoot(to) });
        return { ok: v.ok as boolean, code: (v.code ?? "") as string, operation: (v.operation ?? -1) as number };
      });
    },
    cases,
    block.fromRoot,
    block.toRoot,
  );
  await page.close();
  const codes = new Set<string>();
  cases.forEach(([label, body], i) => {
    const n = checkBlockBody(body, { fromRoot: parseRoot(block.fromRoot), toRoot: parseRoot(block.toRoot) });
    assert.deepEqual(inBrowser[i], { ok: n.ok, code: n.code ?? "", operation: n.operation ?? -1 }, label);
    codes.add(n.code ?? "ACCEPT");
  });
  assert.equal(inBrowser.filter((v) => v.ok).length, 2, "only the two honest bodies are accepted");
  assert.ok(codes.size >= 5, `distinct verdicts: ${[...codes].join(", ")}`);
});

test("browser: a link root that conflicts with the pinned one ends a block check REJECT ROOT_CONFLICT, never ACCEPT", async () => {
  const { page, close } = await isolatedPage();
  try {
    await pinWithButton(page, block.fromRoot);
    await page.goto(link({ root: block.toRoot }));
    await page.$eval("#block-json", (el, t) => ((el as HTMLTextAreaElement).value = t), block.blockJson);
    await page.$eval("#block-proof", (el, t) => ((el as HTMLTextAreaElement).value = t), bytesBase64(block.proof));
    await page.click("#verify-block");
    const v = await linkVerdict(page);
    assert.equal(v.verdict, "REJECT", v.text);
    assert.equal(v.code, "ROOT_CONFLICT");
    assert.ok(!v.seen.includes("ACCEPT"), `verdicts set: ${v.seen.join(", ")}`);
    await page.click("#keep-pinned");
    await page.click("#verify-block");
    const kept = await linkVerdict(page);
    assert.equal(kept.verdict, "ACCEPT", kept.text);
    assert.equal(kept.stored, block.fromRoot);
  } finally {
    await close();
  }
});
