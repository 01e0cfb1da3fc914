import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  expandMixture,
  jobsForDuration,
  offerAt,
  offerCount,
  offerOffsetNs,
  parseMixture,
  type ScheduleSpec,
} from "../../src/serve/load/schedule.js";
import { parseLoadOptions, parseTargets } from "../../src/serve/load/options.js";
import { envName, parseStrictArgs } from "../../src/serve/load/argv.js";
import { LoadError } from "../../src/serve/load/errors.js";

const spec = (over: Partial<ScheduleSpec> = {}): ScheduleSpec => ({
  rate: 100,
  jobs: 10,
  warmupJobs: 3,
  mixture: ["membership", "nonmembership", "update"],
  corpus: 768,
  targets: 1,
  deadlineMs: 1000,
  ...over,
});

test("offsets are round(i·1e9/rate) ns", () => {
  assert.equal(offerOffsetNs(0, 100), 0);
  assert.equal(offerOffsetNs(1, 100), 10_000_000);
  assert.equal(offerOffsetNs(7, 3), Math.round(7e9 / 3));
  assert.equal(offerOffsetNs(1, 3), 333_333_333);
  assert.equal(offerOffsetNs(2, 3), 666_666_667);
  assert.equal(offerOffsetNs(5, 0.5), 10_000_000_000);
  assert.equal(offerOffsetNs(3, 7.5), 400_000_000);
  // exact for large i with an integer rate (i·1e9 beyond 2^53)
  assert.equal(offerOffsetNs(123_456_789_012, 1_000_000), 123_456_789_012_000);
  // exact reference: round half up of i·1e9 / rate in integers
  const exact = (i: number, rate: number): number =>
    Number((2n * BigInt(i) * 1_000_000_000n + BigInt(rate)) / (2n * BigInt(rate)));
  // offsets up to 2^53 ns (104 days) are exact
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 1_000_000 }), (j, rate) => {
      const i = j % (rate * 9_000_000);
      assert.equal(offerOffsetNs(i, rate), exact(i, rate));
    }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 1, max: 1000 }), (i, rate) => {
      assert.ok(offerOffsetNs(i + 1, rate) >= offerOffsetNs(i, rate));
    }),
  );
});

test("mixture expands each kind:weight to weight consecutive copies", () => {
  assert.deepEqual(expandMixture(parseMixture("membership:1,nonmembership:1,update:1")), [
    "membership",
    "nonmembership",
    "update",
  ]);
  assert.deepEqual(expandMixture(parseMixture("update:2,membership:3")), [
    "update",
    "update",
    "membership",
    "membership",
    "membership",
  ]);
  assert.deepEqual(expandMixture(parseMixture("membership:1,membership:1")), ["membership", "membership"]);
  assert.equal(expandMixture(parseMixture("update:10000")).length, 10000);
  for (const bad of [
    "",
    "membership",
    "membership:0",
    "membership:10001",
    "insert:1",
    "membership:1,",
    "membership:-1",
    "membership:1.5",
  ]) {
    assert.throws(
      () => parseMixture(bad),
      (e: unknown) => e instanceof LoadError && e.code === "BAD_OPTION",
      bad,
    );
  }
});

test("offer i: job id, kind, fixture, target, warmup, deadline", () => {
  const s = spec({
    mixture: expandMixture(parseMixture("membership:2,update:1")),
    corpus: 4,
    targets: 2,
    warmupJobs: 5,
    jobs: 20,
    rate: 10,
    deadlineMs: 250,
  });
  assert.equal(offerCount(s), 25);
  const kinds = Array.from({ length: 9 }, (_, i) => offerAt(s, i).kind);
  assert.deepEqual(kinds, [
    "membership",
    "membership",
    "update",
    "membership",
    "membership",
    "update",
    "membership",
    "membership",
    "update",
  ]);
  // fixture = ⌊i / len⌋ mod corpus: len 3, corpus 4
  assert.deepEqual(
    Array.from({ length: 15 }, (_, i) => offerAt(s, i).fixtureId),
    [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0],
  );
  assert.deepEqual(
    Array.from({ length: 5 }, (_, i) => offerAt(s, i).target),
    [0, 1, 0, 1, 0],
  );
  assert.deepEqual(
    Array.from({ length: 7 }, (_, i) => offerAt(s, i).warmup),
    [true, true, true, true, true, false, false],
  );
  const o = offerAt(s, 7);
  assert.equal(o.jobId, 7);
  assert.equal(o.offsetNs, 700_000_000);
  assert.equal(o.deadlineOffsetNs, 950_000_000);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.integer({ min: 1, max: 7 }),
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 1, max: 5 }),
      (i, len, corpus, targets) => {
        const mixture = Array.from(
          { length: len },
          (_, k) => (["membership", "nonmembership", "update"] as const)[k % 3]!,
        );
        const x = offerAt(spec({ mixture, corpus, targets }), i);
        assert.equal(x.kind, mixture[i % len]);
        assert.equal(x.fixtureId, Math.floor(i / len) % corpus);
        assert.equal(x.target, i % targets);
      },
    ),
  );
});

test("jobs from a duration: round(rate × seconds)", () => {
  assert.equal(jobsForDuration(100, 60), 6000);
  assert.equal(jobsForDuration(0.5, 3), 2);
  assert.equal(jobsForDuration(3, 0.5), 2);
  assert.throws(() => jobsForDuration(1, 0.1), /at least 1/);
});

test("options: defaults of §16.5, ranges, exclusive --jobs/--duration", () => {
  const o = parseLoadOptions({ out: "/tmp/x" });
  assert.equal(o.rate, 100);
  assert.equal(o.jobs, 128);
  assert.equal(o.warmupJobs, 32);
  assert.equal(o.corpus, 768);
  assert.equal(o.deadlineMs, 1000);
  assert.equal(o.maxPending, 8192);
  assert.equal(o.senderQueue, 1024);
  assert.equal(o.drainMs, 30000);
  assert.equal(o.runId, "pilot");
  assert.equal(o.depth, 24);
  assert.deepEqual(o.targets, [{ host: "127.0.0.1", port: 9400 }]);
  assert.deepEqual(o.kinds, ["membership", "nonmembership", "update"]);
  assert.equal(parseLoadOptions({ out: "/tmp/x", rate: "50", duration: "60" }).jobs, 3000);
  const bad = (over: Record<string, string>, option: string) =>
    assert.throws(
      () => parseLoadOptions({ out: "/tmp/x", ...over }),
      (e: unknown) => e instanceof LoadError && e.code === "BAD_OPTION" && e.details["option"] === option,
      JSON.stringify(over),
    );
  bad({ rate: "0" }, "--rate");
  bad({ rate: "1000001" }, "--rate");
  bad({ rate: "abc" }, "--rate");
  bad({ jobs: "5", duration: "1" }, "--jobs");
  bad({ corpus: "0" }, "--corpus");
  bad({ depth: "4", corpus: "16" }, "--corpus");
  bad({ depth: "33" }, "--depth");
  bad({ "run-id": "" }, "--run-id");
  bad({ targets: "localhost" }, "--targets");
  bad({ targets: "h:70000" }, "--targets");
  assert.throws(
    () => parseLoadOptions({}),
    (e: unknown) => e instanceof LoadError && e.details["option"] === "--out",
  );
  assert.equal(parseLoadOptions({ out: "/tmp/x", depth: "4", corpus: "15" }).corpus, 15);
  assert.deepEqual(parseTargets("a:1,[::1]:9400, 10.0.0.2:80"), [
    { host: "a", port: 1 },
    { host: "::1", port: 9400 },
    { host: "10.0.0.2", port: 80 },
  ]);
});

test("strict arguments: allow-list, duplicates, missing values, positionals, --servers, environment", () => {
  const allowed = ["rate", "out", "deadline-ms"];
  assert.deepEqual(parseStrictArgs(["--rate", "5", "--out", "d"], allowed, {}), { rate: "5", out: "d" });
  const bad = (tokens: string[], re: RegExp, env: Record<string, string> = {}) =>
    assert.throws(
      () => parseStrictArgs(tokens, allowed, env),
      (e: unknown) => e instanceof LoadError && e.code === "BAD_OPTION" && re.test(e.message),
      tokens.join(" "),
    );
  bad(["--rate", "5", "--rate", "6"], /given twice/);
  bad(["--rate"], /needs a value/);
  bad(["--rate", ""], /needs a value/);
  bad(["--rate", "--out", "d"], /needs a value/);
  bad(["pos"], /unexpected argument/);
  bad(["--rate", "1", "extra"], /unexpected argument/);
  bad(["--jobs", "1"], /unknown option --jobs/);
  bad(["--servers", "a:1"], /use --targets/);
  bad(["--rate=5"], /no '='/);
  assert.equal(envName("deadline-ms"), "SSGR_DEADLINE_MS");
  assert.deepEqual(parseStrictArgs(["--rate", "5"], allowed, { SSGR_RATE: "9", SSGR_DEADLINE_MS: "250" }), {
    rate: "5",
    "deadline-ms": "250",
  });
  bad([], /SSGR_OUT needs a value/, { SSGR_OUT: "" });
});
