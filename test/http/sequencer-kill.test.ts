/**
 * Nothing acknowledged is lost: the real server (`ssgkr registry http`, epochs of 100 ms) under an
 * open-loop write load on 127.0.0.1, SIGKILLed at random moments and restarted. After each
 * restart every acknowledged write (200 after its epoch committed, 202 once durable) is in the
 * registry with its value; at the end every 200's batch and position name its write in the change
 * log, every epoch batch is whole (each of its inserts is in the registry with its value), and
 * `ssgkr registry check` passes. Bounded: 4 kills, about 20 s. Then the same with the proving pool
 * and the block prover on, killed while blocks are pending or proving: every committed epoch gets
 * its block after the restart and the chain from size 0 verifies.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { RecordState } from "../../src/registry/store/record-codec.js";
import { freshDir, makeRegistry, removeDir, ROOT, runSsgkr, spawnServer, TOKEN, tokenFile } from "../web/support.js";
import { fetchChain } from "../../src/cli/registry-client.js";
import { verifyConsistency } from "../../src/registry/consistency/verify-consistency.js";

const KILLS = 4;
type Ack = { name: string; value: string; status: 200 | 202; batch?: number; position?: number };

/** Starts the server; resolves with the process and its base URL once it prints `listening on`. */
function startServer(db: string, token: string): Promise<{ proc: ChildProcess; base: string }> {
  const proc = spawn(
    process.execPath,
    [
      join(ROOT, "bin", "ssgkr.js"),
      "registry",
      "http",
      "--db",
      db,
      "--listen",
      "127.0.0.1:0",
      "--token-file",
      token,
      "--no-prove-blocks",
      "--rate-limit",
      "0",
      "--epoch-ms",
      "100",
      // proofs are not what this test is about: no proving pool to start at each restart
      "--workers",
      "0",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`no listening line in 60 s: ${err}`)), 60_000);
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, base: m[1]! });
      }
    });
    proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code} before listening: ${err}`));
    });
  });
}

/** Writes fresh names every 3 ms (open loop: no write waits for another) until `stop()`; the acknowledged ones are pushed to `acks`. */
function load(base: string, round: number, acks: Ack[], odd: string[]): { stop: () => Promise<void> } {
  let i = 0;
  const inflight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const n = i++;
    const name = `r${round}-w${n}`;
    const value = `value-${round}-${n}`;
    const async = n % 3 === 0;
    const p = fetch(`${base}/v1/records/${name}`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        ...(async ? { prefer: "respond-async" } : {}),
      },
      body: JSON.stringify({ value }),
    })
      .then(async (r) => {
        const j = (await r.json()) as Record<string, any>;
        if (r.status === 200) acks.push({ name, value, status: 200, batch: j.batch, position: j.position });
        else if (r.status === 202) acks.push({ name, value, status: 202 });
        // a fresh name whose key holds another name is refused alone (409 KEY_COLLISION at depth 24)
        else if (r.status !== 409 || j.code !== "KEY_COLLISION") odd.push(`${r.status} ${JSON.stringify(j)}`);
      })
      .catch(() => {
        // the server was killed before answering: not acknowledged
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }, 3);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.allSettled([...inflight]);
    },
  };
}

async function checkAcks(base: string, acks: readonly Ack[]): Promise<void> {
  for (const a of acks) {
    const r = await fetch(`${base}/v1/records/${a.name}`);
    const j = (await r.json()) as Record<string, any>;
    assert.deepEqual([r.status, j.status, j.value], [200, "live", a.value], `acknowledged ${a.status}: ${a.name}`);
  }
}

test("sequencer under SIGKILL: every acknowledged write (200 and 202) survives 4 kills at random moments; epochs are whole; registry check passes", async () => {
  const dir = freshDir("ssgkr-seq-kill-");
  try {
    const store = makeRegistry(dir, 24);
    const db = store.dir;
    await store.close();
    const token = tokenFile(dir);
    const acks: Ack[] = [];
    const odd: string[] = [];
    let live: ChildProcess | undefined;
    try {
      for (let round = 0; round <= KILLS; round++) {
        const { proc, base } = await startServer(db, token);
        live = proc;
        const exited = new Promise((r) => proc.once("exit", r));
        await checkAcks(base, acks);
        if (round === KILLS) {
          proc.kill("SIGTERM");
          await exited;
          break;
        }
        const l = load(base, round, acks, odd);
        await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 1200)));
        proc.kill("SIGKILL");
        await exited;
        await l.stop();
      }
    } finally {
      if (live !== undefined && live.exitCode === null && live.signalCode === null) live.kill("SIGKILL");
    }
    assert.deepEqual(odd, [], "every answer was 200, 202 or a key collision");
    assert.ok(acks.filter((a) => a.status === 200).length > 20, `${acks.length} writes were acknowledged with 200`);
    assert.ok(acks.filter((a) => a.status === 202).length > 10, "writes were acknowledged with 202");

    const s = NameStore.open(db, { readOnly: true });
    try {
      for (const a of acks)
        if (a.status === 200)
          assert.equal(s.changePart(a.batch!, 0)[a.position!]?.name, a.name, `${a.name} at its position`);
      for (const e of s.history().filter((h) => h.kind === "epoch")) {
        const changes = s.changePart(e.batch, 0);
        assert.equal(changes.length, e.written, `epoch ${e.batch} logs its writes`);
        for (const c of changes) {
          const r = s.lookup(c.name).record;
          assert.deepEqual([r?.state, r?.value], [RecordState.Live, c.value], `epoch ${e.batch}: ${c.name} is whole`);
        }
      }
    } finally {
      await s.close();
    }
    const check = await runSsgkr(dir, "registry", "check", "--db", db, "--no-progress");
    assert.equal(check.status, 0, check.stderr + check.stdout);
  } finally {
    removeDir(dir);
  }
});

test("server under SIGKILL while it proves blocks: after 3 kills at random moments every acknowledged write is there, every committed epoch gets its block, no block is stored for a batch that did not commit, and the chain from size 0 verifies", async () => {
  const dir = freshDir("ssgkr-seq-kill-blocks-");
  try {
    const store = makeRegistry(dir, 24); // depth 24: a fresh name rarely collides (a 202 write that collides fails in its epoch)
    const db = store.dir;
    await store.close();
    const token = tokenFile(dir);
    const acks: Ack[] = [];
    const odd: string[] = [];
    const args = [
      "--db",
      db,
      "--listen",
      "127.0.0.1:0",
      "--token-file",
      token,
      "--rate-limit",
      "0",
      "--epoch-ms",
      "100",
      "--workers",
      "2",
    ];
    for (let round = 0; round < 3; round++) {
      const s = await spawnServer(args, dir);
      await checkAcks(s.base, acks);
      const l = load(s.base, 100 + round, acks, odd);
      // a moment while blocks are pending or proving
      await new Promise((r) => setTimeout(r, 500 + Math.floor(Math.random() * 1500)));
      s.proc.kill("SIGKILL");
      await new Promise((r) => s.proc.once("exit", r));
      await l.stop();
    }
    const s = await spawnServer(args, dir);
    try {
      await checkAcks(s.base, acks);
      let st: {
        head: { batch: number };
        blocks: { pending_batches: number; proving_parts: number; failed_batches: number };
      };
      const t0 = Date.now();
      do {
        await new Promise((r) => setTimeout(r, 500));
        st = (await (await fetch(`${s.base}/v1/status`)).json()) as typeof st;
      } while ((st.blocks.pending_batches > 0 || st.blocks.proving_parts > 0) && Date.now() - t0 < 180_000);
      assert.deepEqual(
        [st.blocks.pending_batches, st.blocks.failed_batches],
        [0, 0],
        "every committed epoch got its block",
      );
      const head = st.head.batch;
      const chain = await fetchChain(s.base, 0, head, 60_000);
      const h = (await (await fetch(`${s.base}/v1/history?limit=100000`)).json()) as {
        entries: { batch: number; root: string }[];
      };
      const rootOf = (b: number) => h.entries.find((e) => e.batch === b)!.root;
      assert.deepEqual(
        verifyConsistency({ from: { size: 0, root: rootOf(0) }, to: { size: head, root: rootOf(head) } }, chain),
        {
          ok: true,
          blocks: chain.filter((l) => l.unchanged !== true).length,
          unchanged: chain.filter((l) => l.unchanged === true).length,
        },
      );
      const blocks = (await (await fetch(`${s.base}/v1/blocks?limit=1000`)).json()) as { blocks: { batch: number }[] };
      assert.ok(
        blocks.blocks.every((b) => b.batch <= head),
        "no block of a batch that did not commit",
      );
    } finally {
      await s.stop();
    }
    assert.deepEqual(odd, [], "every answer was 200, 202 or a key collision");
    assert.ok(acks.length > 20, `${acks.length} writes were acknowledged`);
    const check = await runSsgkr(dir, "registry", "check", "--db", db, "--no-progress");
    assert.equal(check.status, 0, check.stderr + check.stdout);
  } finally {
    removeDir(dir);
  }
});
