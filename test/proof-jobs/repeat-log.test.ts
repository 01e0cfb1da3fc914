/**
 * repeatLog: a fault line is written once, then at most once per interval with its count while it
 * repeats (two alternating lines each on their own); recovery is one line, only after faults.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { repeatLog } from "../../src/proof-jobs/repeat-log.js";

test("repeats are counted and written once per interval; recovery is one line after faults only", () => {
  const lines: string[] = [];
  let t = 0;
  const say = repeatLog(
    (l) => lines.push(l),
    60_000,
    () => t,
  );
  say.recovered("back");
  assert.deepEqual(lines, [], "no recovery line without a fault");
  // a follow that fails every 2 s writes its two lines once, then once a minute with their counts
  for (; t < 61_000; t += 2_000) {
    say("follow by blocks: MIRROR_UNREACHABLE: down");
    say("follow: MIRROR_UNREACHABLE: down");
  }
  assert.deepEqual(lines, [
    "follow by blocks: MIRROR_UNREACHABLE: down",
    "follow: MIRROR_UNREACHABLE: down",
    "follow by blocks: MIRROR_UNREACHABLE: down (30 more times in 60 s)",
    "follow: MIRROR_UNREACHABLE: down (30 more times in 60 s)",
  ]);
  say("another fault");
  assert.equal(lines.at(-1), "another fault", "a new line is written at once");
  say.recovered("back");
  assert.equal(lines.at(-1), "back");
  say("follow: MIRROR_UNREACHABLE: down");
  assert.equal(lines.at(-1), "follow: MIRROR_UNREACHABLE: down", "after recovery a fault is new again");
  assert.equal(lines.length, 7);
});

test("without a log nothing is written and nothing throws", () => {
  const say = repeatLog(undefined);
  assert.doesNotThrow(() => {
    say("x");
    say("x");
    say.recovered("y");
  });
});
