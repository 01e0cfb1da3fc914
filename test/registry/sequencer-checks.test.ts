/**
 * The sequencer's checks before a write is queued (registry/sequencer/sequencer.ts: the form
 * checked by `checkEpochWriteForm`, the name hashed later by the epoch): each refusal is thrown
 * with the code `checkEpochWrite` gives and nothing is queued; accepted writes, submitted and
 * accepted (`Prefer: respond-async`), commit in one epoch with the results and root of the same
 * writes in the epoch's order (the submitted first) applied by `applyEpoch` to a second registry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { Sequencer, type SequencerAnswer } from "../../src/registry/sequencer/sequencer.js";
import { applyEpoch, checkEpochWrite, type EpochWrite } from "../../src/registry/sequencer/epoch.js";
import { formatRoot } from "../../src/registry/root.js";
import { tempDir } from "./support/tmp.js";

const codeOf = async (f: () => Promise<unknown>): Promise<string | undefined> => {
  try {
    await f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
};

test("sequencer: refusals before the queue keep checkEpochWrite's codes; an epoch of checked writes equals applyEpoch of the same writes on another registry", async () => {
  const dir = tempDir("ssgkr-sequencer-checks-");
  const store = NameStore.openOrCreate(join(dir, "seq"), { depth: 24 });
  const seq = new Sequencer(store, { epochMs: 60_000, writer: "inline" });
  await seq.start();
  const bad: EpochWrite[] = [
    { op: "put", name: "", value: "x" },
    { op: "put", name: "Cafe\u0301", value: "x" },
    { op: "put", name: "no-value" },
    { op: "put", name: "\ud800", value: "x" },
    { op: "put", name: "n".repeat(2000), value: "x" },
    { op: "restore", name: "Cafe\u0301" },
  ];
  for (const w of bad) {
    const expected = (() => {
      try {
        checkEpochWrite(store, w);
        return undefined;
      } catch (e) {
        return (e as { code: string }).code;
      }
    })();
    assert.ok(expected !== undefined, JSON.stringify(w).slice(0, 40));
    assert.equal(await codeOf(() => seq.submit(w)), expected);
    assert.equal(await codeOf(() => seq.accept(w)), expected);
  }
  assert.equal(seq.status().writesQueued, 0);
  const writes: EpochWrite[] = [];
  for (let i = 0; i < 40; i++) writes.push({ op: "put", name: `name-${i}`, value: `https://example.com/${i}` });
  writes.push({ op: "delete", name: "name-3" }, { op: "delete", name: "never" }, { op: "restore", name: "name-3" });
  writes.push({ op: "put", name: "name-5", value: null }, { op: "put", name: "ünï", value: { fields: [1, 2] } });
  const answers: Promise<SequencerAnswer>[] = [];
  for (const [i, w] of writes.entries()) answers.push(i % 4 === 0 ? seq.accept(w) : seq.submit(w));
  await Promise.all(answers.filter((_, i) => i % 4 === 0));
  await seq.runEpoch();
  const got = await Promise.all(answers);
  const order: number[] = [];
  // submitted writes are queued at once, accepted ones once their rows are written: the epoch
  // applies the submitted ones first, then the accepted ones, each in their order
  writes.forEach((_, i) => i % 4 !== 0 && order.push(i));
  writes.forEach((_, i) => i % 4 === 0 && order.push(i));
  const appliedInOrder = applyEpoch(
    NameStore.openOrCreate(join(dir, "ordered"), { depth: 24 }),
    { batch: -1, keys: new Float64Array(0) },
    order.map((i) => writes[i]!),
  );
  assert.equal(formatRoot(store.head().root), formatRoot(appliedInOrder.entry!.root));
  for (const [j, i] of order.entries()) {
    const a = got[i]!;
    const r = appliedInOrder.results[j]!;
    if (i % 4 === 0) assert.equal(a.kind, "accepted");
    else {
      assert.equal(a.kind, "done");
      if (a.kind !== "done") continue;
      assert.equal(a.result.ok, r.ok, `write ${i}`);
      if (a.result.ok && r.ok) {
        assert.equal(a.result.op, r.op);
        assert.equal(a.result.position, r.position);
      } else if (!a.result.ok && !r.ok) assert.equal(a.result.code, r.error.code);
    }
  }
  await seq.close();
  store.closeSync();
});
