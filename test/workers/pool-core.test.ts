import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { PoolCore, type CrashInfo, type PoolCoreOptions, type PoolSlot } from "../../src/workers/pool-core.js";

const url = new URL("./crash-worker.js", import.meta.url);

interface State {
  replies: unknown[];
}

/** A core over the test worker, recording every callback; `next()` resolves at the next event. */
function harness(overrides: Partial<PoolCoreOptions<State>> = {}) {
  const events: string[] = [];
  const crashes: CrashInfo[] = [];
  const broken: { crashes: number; reason: string }[] = [];
  let wake: (() => void) | null = null;
  const note = (e: string) => {
    events.push(e);
    const w = wake;
    wake = null;
    w?.();
  };
  let spawned = 0;
  const core = new PoolCore<State>({
    size: 2,
    spawn: () => {
      spawned++;
      return new Worker(url);
    },
    initialState: () => ({ replies: [] }),
    onMessage: (slot, msg) => {
      slot.state.replies.push(msg);
      note(`message ${slot.index}`);
    },
    onCrash: (slot, crash) => {
      crashes.push(crash);
      note(`crash ${slot.index}`);
    },
    onRespawn: (previous, fresh) => note(`respawn ${previous.index}->${fresh.index}`),
    onBroken: (info) => {
      broken.push(info);
      note("broken");
    },
    ...overrides,
  });
  const until = async (pred: () => boolean) => {
    while (!pred())
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
  };
  return { core, events, crashes, broken, until, spawned: () => spawned };
}

const ask = (slot: PoolSlot<State>, msg: object) => slot.worker.postMessage(msg);

test("the core starts its workers and forwards their messages with the slot", async () => {
  const h = harness();
  try {
    assert.equal(h.core.slots.length, 2);
    assert.deepEqual(
      h.core.slots.map((s) => s.index),
      [0, 1],
    );
    ask(h.core.slots[1]!, { type: "echo", value: 5 });
    await h.until(() => h.events.includes("message 1"));
    assert.equal((h.core.slots[1]!.state.replies[0] as { value: number }).value, 5);
    assert.equal(h.core.respawns, 0);
  } finally {
    await h.core.close();
  }
});

test("a worker that exits is a crash: onCrash with its exit code, then a fresh worker in its slot", async () => {
  const h = harness();
  try {
    const before = h.core.slots[0]!;
    ask(before, { type: "exit", value: 9 });
    await h.until(() => h.events.includes("respawn 0->0"));
    assert.deepEqual(
      h.events.filter((e) => e.startsWith("crash") || e.startsWith("respawn")),
      ["crash 0", "respawn 0->0"],
    );
    assert.equal(h.crashes[0]!.exitCode, 9);
    assert.match(h.crashes[0]!.reason, /exited with code 9/);
    assert.notEqual(h.core.slots[0], before, "the slot holds a new worker");
    assert.equal(h.core.respawns, 1);
    assert.equal(h.spawned(), 3);
    ask(h.core.slots[0]!, { type: "echo", value: 1 });
    await h.until(() => h.events.includes("message 0"));
  } finally {
    await h.core.close();
  }
});

test("a worker that throws reports its error as the crash reason", async () => {
  const h = harness();
  try {
    ask(h.core.slots[1]!, { type: "throw", value: 3 });
    await h.until(() => h.crashes.length === 1);
    assert.match(h.crashes[0]!.reason, /RangeError: asked to throw 3/);
    assert.equal(h.crashes[0]!.exitCode, 1);
  } finally {
    await h.core.close();
  }
});

test("maxConsecutiveCrashes crashes in a row break the pool: onBroken, no respawn; noteSuccess resets the count", async () => {
  const h = harness({ maxConsecutiveCrashes: 2 });
  try {
    ask(h.core.slots[0]!, { type: "exit" });
    await h.until(() => h.events.includes("respawn 0->0"));
    assert.equal(h.core.consecutiveCrashes, 1);
    h.core.noteSuccess();
    assert.equal(h.core.consecutiveCrashes, 0);
    ask(h.core.slots[0]!, { type: "exit" });
    await h.until(() => h.core.respawns === 2);
    assert.equal(h.core.broken, false, "a success in between: not broken");
    ask(h.core.slots[1]!, { type: "exit" });
    await h.until(() => h.broken.length === 1);
    assert.equal(h.core.broken, true);
    assert.equal(h.broken[0]!.crashes, 2);
    assert.equal(h.core.respawns, 2, "no respawn once broken");
    assert.equal(h.events.at(-1), "broken");
  } finally {
    await h.core.close();
  }
});

test("close terminates every worker once; their exits are not crashes; later closes return the same promise", async () => {
  const h = harness();
  const exits: number[] = [];
  for (const s of h.core.slots) s.worker.on("exit", (c) => exits.push(c));
  const a = h.core.close();
  const b = h.core.close();
  assert.equal(a, b);
  assert.equal(h.core.closed, true);
  await a;
  assert.equal(exits.length, 2);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(h.crashes, []);
  assert.equal(h.core.respawns, 0);
});

test("unrefIdle workers do not keep the process alive until busy; bad sizes are refused", async () => {
  const h = harness({ unrefIdle: true, size: 1 });
  try {
    const slot = h.core.slots[0]!;
    h.core.busy(slot);
    ask(slot, { type: "echo", value: 2 });
    await h.until(() => h.events.includes("message 0"));
    h.core.idle(slot);
  } finally {
    await h.core.close();
  }
  assert.throws(
    () =>
      new PoolCore<State>({
        size: 0,
        spawn: () => new Worker(url),
        initialState: () => ({ replies: [] }),
        onMessage: () => undefined,
        onCrash: () => undefined,
      }),
    RangeError,
  );
  assert.throws(
    () =>
      new PoolCore<State>({
        size: 1,
        maxConsecutiveCrashes: 0,
        spawn: () => new Worker(url),
        initialState: () => ({ replies: [] }),
        onMessage: () => undefined,
        onCrash: () => undefined,
      }),
    RangeError,
  );
});
