// The client of scripts/multihost-registry.sh, run inside the test's client namespace:
//   load BASE TOKEN ROUNDS   epochs of writes (4 names each), then proofs of every profile of a name
//                            written and of an absent name, each checked with BASE's POST /v1/verify;
//                            prints one JSON line; exit 1 on any request that does not answer 200 or
//                            any proof that does not verify
//   blocks BASE WAIT_S       waits (at most WAIT_S s) for the block of every batch up to the head,
//                            checks each with POST /v1/verify; prints one JSON line; exit 1 otherwise
//   root-of BASE N           prints the root of batch N from GET /v1/history
//   slow-proxy BASE HOST PORT DELAY_MS   forwards every GET to BASE, each answered DELAY_MS late
//                            (a slow path to the primary, so that a mirror's catch-up lasts long
//                            enough to be killed mid-way); runs until killed
//   mirror-proofs BASE PRIMARY NAMES…   proofs of every profile of each name (and of an absent name)
//                            served by the mirror at BASE, each posted unchanged to PRIMARY's
//                            POST /v1/verify: every one must be accepted
//   head BASE                prints the head's batch number and root (GET /v1/root)
//   tamper-proxy BASE HOST PORT AFTER   a tampering primary: forwards every GET to BASE, but in the
//                            links of GET /v1/consistency of every batch after AFTER the first
//                            update's value is changed (a modified block); runs until killed
//   fork-proxy BASE HOST PORT SIZE KEY_FILE   a forking primary: forwards every GET to BASE, but
//                            answers GET /v1/checkpoint and GET /v1/checkpoint?size=SIZE with a
//                            second checkpoint of size SIZE, of the empty registry's root, signed
//                            with the primary's key (KEY_FILE); runs until killed
//   expect-halt BASE PRIMARY CODE SIZE WAIT_S   the mirror at BASE halts within WAIT_S s with CODE
//                            in GET /v1/status, at verified size SIZE with PRIMARY's root of it;
//                            its evidence file holds the offending block or both checkpoints; it
//                            still serves PRIMARY's checkpoint of SIZE byte for byte and proofs
//                            PRIMARY accepts, and a second later is still halted at SIZE
// Every request is bounded in time.
const [mode, base, ...rest] = process.argv.slice(2);
const fail = (m) => {
  console.error(`multihost-registry client: ${m}`);
  process.exit(1);
};

async function req(path, init = {}) {
  const r = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(180_000) });
  const text = await r.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: r.status, body };
}

async function verify(body, what) {
  const v = await req("/v1/verify", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (v.status !== 200 || v.body.ok !== true)
    fail(`${what} does not verify: ${v.status} ${JSON.stringify(v.body).slice(0, 300)}`);
}

if (mode === "load") {
  const [token, roundsText] = rest;
  const rounds = Number(roundsText);
  const t0 = Date.now();
  let writes = 0;
  let proofs = 0;
  const ms = [];
  for (let r = 0; r < rounds; r++) {
    const names = Array.from({ length: 4 }, (_, i) => `mh-${process.pid}-${r}-${i}`);
    const answers = await Promise.all(
      names.map((n) =>
        req(`/v1/records/${encodeURIComponent(n)}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ value: `https://example.org/${n}` }),
        }),
      ),
    );
    for (const a of answers) if (a.status !== 200) fail(`write: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
    writes += answers.length;
    const reads = [
      [names[r % 4], ""],
      [names[(r + 1) % 4], "?profile=v3"],
      [names[(r + 2) % 4], "?zk=1"],
      [`absent-${process.pid}-${r}`, "?profile=v3"],
    ];
    await Promise.all(
      reads.map(async ([n, q]) => {
        const t = Date.now();
        const p = await req(`/v1/records/${encodeURIComponent(n)}/proof${q}`);
        ms.push(Date.now() - t);
        if (p.status !== 200) fail(`proof of ${n}${q}: ${p.status} ${JSON.stringify(p.body).slice(0, 300)}`);
        await verify(p.body, `proof of ${n}${q}`);
        proofs++;
      }),
    );
  }
  ms.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      writes,
      proofs,
      verified: proofs,
      seconds: (Date.now() - t0) / 1000,
      proof_ms_p50: ms[ms.length >> 1],
      proof_ms_max: ms[ms.length - 1],
    }),
  );
} else if (mode === "blocks") {
  const deadline = Date.now() + Number(rest[0]) * 1000;
  const head = (await req("/v1/root")).body.batch;
  let blocks = 0;
  for (let b = 1; b <= head; b++) {
    for (;;) {
      const r = await req(`/v1/blocks/${b}`);
      if (r.status === 200) {
        await verify(r.body, `block of batch ${b}`);
        blocks++;
        break;
      }
      if (r.status === 400 && /in \d+ parts/.test(JSON.stringify(r.body)))
        fail(`batch ${b} is in parts (not expected here)`);
      if (Date.now() > deadline)
        fail(`no block of batch ${b} within the wait: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      await new Promise((res) => setTimeout(res, 500));
    }
  }
  console.log(JSON.stringify({ head, blocks_verified: blocks }));
} else if (mode === "root-of") {
  const n = Number(rest[0]);
  const h = await req("/v1/history?limit=100000");
  const e = h.body.entries?.find((x) => x.batch === n);
  if (!e) fail(`batch ${n} is not in the history`);
  console.log(e.root);
} else if (mode === "mirror-proofs") {
  const [primary, ...names] = rest;
  let checked = 0;
  for (const n of [...names, `absent-${process.pid}`]) {
    for (const q of ["", "?profile=v3", "?zk=1"]) {
      const p = await req(`/v1/records/${encodeURIComponent(n)}/proof${q}`);
      if (p.status !== 200) fail(`the mirror's proof of ${n}${q}: ${p.status} ${JSON.stringify(p.body).slice(0, 300)}`);
      await acceptedByPrimary(primary, p.body, `the mirror's proof of ${n}${q}`);
      checked++;
    }
  }
  console.log(JSON.stringify({ mirror_proofs_accepted_by_primary: checked }));
} else if (mode === "slow-proxy") {
  const [host, port, delay] = rest;
  proxy(host, port, async () => {
    await new Promise((r) => setTimeout(r, Number(delay)));
    return undefined;
  });
} else if (mode === "head") {
  const r = await req("/v1/root");
  if (r.status !== 200) fail(`GET /v1/root: ${r.status}`);
  console.log(`${r.body.batch} ${r.body.root}`);
} else if (mode === "tamper-proxy") {
  const [host, port, afterText] = rest;
  const after = Number(afterText);
  proxy(host, port, async (url) => {
    if (!url.startsWith("/v1/consistency")) return undefined;
    const r = await fetch(`${base}${url}`, { signal: AbortSignal.timeout(120_000) });
    if (r.status !== 200) return { status: r.status, type: r.headers.get("content-type"), body: await r.text() };
    const page = await r.json();
    for (const l of page.links ?? []) {
      if (!(l.batch > after) || l.block === undefined) continue;
      const block = typeof l.block === "string" ? JSON.parse(l.block) : l.block;
      if (!Array.isArray(block.updates) || block.updates.length === 0) continue;
      block.updates[0].value = "https://tampered.example/";
      l.block = typeof l.block === "string" ? JSON.stringify(block) : block;
    }
    return { status: 200, type: "application/json", body: JSON.stringify(page) };
  });
} else if (mode === "fork-proxy") {
  const [host, port, sizeText, keyFile] = rest;
  const size = Number(sizeText);
  const { readSigningKey, signCheckpoint } = await import("../dist/src/registry/index.js");
  const h = await req("/v1/history?limit=100000");
  const zero = h.body.entries?.find((x) => x.batch === 0);
  if (!zero) fail("batch 0 is not in the history");
  const forged = signCheckpoint(readSigningKey(keyFile), { size, root: zero.root });
  proxy(host, port, async (url) =>
    url === "/v1/checkpoint" || url === `/v1/checkpoint?size=${size}`
      ? { status: 200, type: "text/plain; charset=utf-8", body: forged }
      : undefined,
  );
} else if (mode === "expect-halt") {
  const [primary, code, sizeText, waitText] = rest;
  const size = Number(sizeText);
  const deadline = Date.now() + Number(waitText) * 1000;
  let st;
  for (;;) {
    st = (await req("/v1/status")).body?.mirror;
    if (st?.state === "halted") break;
    if (Date.now() > deadline)
      fail(`the mirror did not halt within ${waitText} s: ${JSON.stringify(st).slice(0, 400)}`);
    await new Promise((res) => setTimeout(res, 250));
  }
  if (st.problem?.code !== code)
    fail(`the mirror halted with ${JSON.stringify(st.problem).slice(0, 300)}, not ${code}`);
  const h = await fetch(`${primary}/v1/history?limit=100000`, { signal: AbortSignal.timeout(60_000) });
  const root = (await h.json()).entries?.find((x) => x.batch === size)?.root;
  if (st.verified.size !== size || st.verified.root !== root)
    fail(`the halted mirror is at ${JSON.stringify(st.verified)}, not size ${size} with the primary's root ${root}`);
  const { existsSync, readFileSync } = await import("node:fs");
  const file = st.problem.evidence;
  if (typeof file !== "string" || !existsSync(file)) fail(`no evidence file: ${JSON.stringify(st.problem)}`);
  const ev = JSON.parse(readFileSync(file, "utf8"));
  if (ev.code !== code || ev.checkpoints.length !== 2)
    fail(`the evidence is not of ${code}: ${JSON.stringify(ev).slice(0, 300)}`);
  if (code === "MIRROR_FORK") {
    const sizes = ev.checkpoints.map((c) => c.split("\n")[1]);
    if (sizes[0] !== String(size) || sizes[1] !== String(size) || ev.checkpoints[0] === ev.checkpoints[1])
      fail(`the evidence does not hold two checkpoints of size ${size}: ${JSON.stringify(ev.checkpoints)}`);
  } else if (!JSON.stringify(ev.links).includes("tampered.example"))
    fail(`the evidence does not hold the modified block: ${JSON.stringify(ev.links).slice(0, 300)}`);
  const [mine, theirs] = await Promise.all(
    [`${base}/v1/checkpoint`, `${primary}/v1/checkpoint?size=${size}`].map(async (u) =>
      (await fetch(u, { signal: AbortSignal.timeout(60_000) })).text(),
    ),
  );
  if (mine !== theirs)
    fail(`the halted mirror serves ${JSON.stringify(mine)}, not the primary's checkpoint of size ${size}`);
  const p = await req("/v1/records/pkg-1/proof?profile=v3");
  if (p.status !== 200) fail(`the halted mirror's proof: ${p.status} ${JSON.stringify(p.body).slice(0, 300)}`);
  await acceptedByPrimary(primary, p.body, "the halted mirror's proof");
  await new Promise((res) => setTimeout(res, 1000));
  const again = (await req("/v1/status")).body?.mirror;
  if (again?.state !== "halted" || again.verified.size !== size)
    fail(`the mirror moved after it halted: ${JSON.stringify(again).slice(0, 300)}`);
  console.log(JSON.stringify({ halted: code, size, evidence: file, serves_verified_state: true }));
} else fail(`unknown mode ${mode}`);

/** Fails unless the primary's `POST /v1/verify` accepts `body` unchanged. */
async function acceptedByPrimary(primary, body, what) {
  const v = await fetch(`${primary}/v1/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(180_000),
  });
  const answer = await v.json();
  if (v.status !== 200 || answer.ok !== true)
    fail(`${what} is not accepted by the primary: ${JSON.stringify(answer).slice(0, 300)}`);
}

/** A proxy to `base` on HOST:PORT; `answer(url)` gives an answer of its own, or undefined to forward. */
async function proxy(host, port, answer) {
  const { createServer } = await import("node:http");
  createServer(async (q, res) => {
    try {
      const own = await answer(q.url);
      if (own !== undefined) {
        res.writeHead(own.status, own.type ? { "content-type": own.type } : {}).end(own.body);
        return;
      }
      const r = await fetch(`${base}${q.url}`, { signal: AbortSignal.timeout(120_000) });
      const body = Buffer.from(await r.arrayBuffer());
      const headers = {};
      r.headers.forEach((v, k) => {
        if (!["content-length", "transfer-encoding", "connection", "content-encoding"].includes(k)) headers[k] = v;
      });
      res.writeHead(r.status, headers).end(body);
    } catch (e) {
      console.error(`${new Date().toISOString()} ${q.url}: ${e?.cause?.code ?? e?.message ?? e}`);
      res.destroy();
    }
  }).listen(Number(port), host, () => console.log(`proxy listening on ${host}:${port}`));
}
