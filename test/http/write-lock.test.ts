import { test } from "node:test";
import assert from "node:assert/strict";
import { WriteLock } from "../../src/http/write-lock.js";

test("WriteLock: writes run one at a time in arrival order; past the queue bound a write gets 409 WRITE_BUSY; a failing write does not block the next", async () => {
  const lock = new WriteLock(3);
  const order: string[] = [];
  let active = 0;
  const job = (id: string, fail = false) =>
    lock.run(async () => {
      active++;
      assert.equal(active, 1, "never two writers at once");
      order.push(`start ${id}`);
      await new Promise((r) => setTimeout(r, 5));
      order.push(`end ${id}`);
      active--;
      if (fail) throw new Error(`write ${id} failed`);
      return id;
    });
  const a = job("a");
  const b = job("b", true);
  const c = job("c");
  await assert.rejects(job("d"), { code: "WRITE_BUSY", status: 409 });
  assert.equal(await a, "a");
  await assert.rejects(b, /write b failed/);
  assert.equal(await c, "c");
  assert.deepEqual(order, ["start a", "end a", "start b", "end b", "start c", "end c"]);
  assert.equal(lock.queued, 0);
  assert.equal(await job("e"), "e", "the lock is usable after a burst");
});
