import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { renderReport, chartJsSource } from "../../bench/report/index.js";

const CONDITIONS = {
  cpu: "Test CPU",
  cores: 2,
  node: "v20.0.0",
  v8: "11.3",
  platform: "linux-x64",
  memoryMiB: 1024,
  load1: 0.5,
  date: "2026-01-01T00:00:00.000Z",
};
const s = (median: number) => ({ median, min: median * 0.9, max: median * 1.1 });

/** Small results in the shapes the benchmarks write, plus an unknown one and broken ones. */
const SAMPLES: Record<string, unknown> = {
  primitives: {
    benchmark: "primitives",
    conditions: CONDITIONS,
    units: "M/s",
    rows: [
      { op: "base mul", logSize: 16, unit: "mul", ts: { rate: s(280) }, wasm: { rate: s(2100) } },
      { op: "poseidon2 (array API)", logSize: 16, unit: "perm", wasm: { rate: s(3.2) } },
    ],
  },
  memory: {
    conditions: CONDITIONS,
    sweep: [
      { family: "mixed", widthBits: 2, width: 4, oracle: "sparse", ok: true, peakRssMiB: 50, proveMs: 6 },
      { family: "mixed", widthBits: 3, width: 8, oracle: "sparse", ok: true, peakRssMiB: 51, proveMs: 9 },
      { family: "mixed", widthBits: 2, width: 4, oracle: "dense", ok: true, peakRssMiB: 52, proveMs: 7 },
      { family: "mixed", widthBits: 3, width: 8, oracle: "dense", ok: false, failure: "time cap", peakRssMiB: 60 },
    ],
    headline: { sparse_max_width_under_3gib: 8, all_verified: "yes" },
  },
  prepare: {
    benchmark: "prepare",
    conditions: CONDITIONS,
    kinds: [
      {
        depth: 24,
        kind: "membership",
        gates: 240208,
        compileMs: s(15),
        commitmentMs: s(70),
        wiringMs: s(60),
        prepareMs: s(145),
      },
    ],
  },
  verify: {
    benchmark: "verify",
    conditions: CONDITIONS,
    rows: [
      {
        kind: "membership",
        depth: 24,
        layers: 118,
        gates: 240208,
        verifyTableMs: s(60),
        verifyDerivedMs: s(10),
        ratio: 6,
        splitDerivedMs: { statement: 0.1, transcript: 4, wiring: 4, sumcheck: 1, inputMle: 0.1, other: -0.2 },
      },
    ],
  },
  batch: {
    benchmark: "batch",
    conditions: CONDITIONS,
    settings: { depth: 24, jobsPerBatch: 6 },
    serial: { rate: s(2.4) },
    pools: [
      { workers: 1, prove: s(2.9), verify: s(8.6), proveVerify: s(2), identical: true, startupMs: 100 },
      { workers: 2, prove: s(3.9), identical: true, startupMs: 200 },
    ],
  },
  size: {
    benchmark: "size",
    conditions: CONDITIONS,
    rows: [
      {
        kind: "membership",
        depth: 24,
        layers: 118,
        gates: 240208,
        bytes: 176948,
        formulaBytes: 176948,
        specBytes: 176948,
        inputBitsHistogram: { "8": 29, "9": 57, "10": 32 },
      },
      {
        kind: "membership",
        depth: 32,
        layers: 118,
        gates: 308952,
        bytes: 182132,
        formulaBytes: 182132,
        specBytes: null,
      },
    ],
    growthPct: { from: 24, to: 32, byKind: { membership: 2.93 } },
  },
  registry: {
    benchmark: "registry",
    conditions: CONDITIONS,
    report: { entries: 10, timings: { wallMs: 100, hashMs: 60 } },
    recordsPerSecond: 100,
  },
  prove: {
    benchmark: "prove",
    conditions: CONDITIONS,
    rows: [{ kind: "membership", depth: 24, freshMs: s(900), preparedMs: s(250) }],
  },
  serving: {
    benchmark: "serving",
    conditions: CONDITIONS,
    settings: { rate: 10 },
    rows: [{ mode: "open-loop", p50Ms: 12, p99Ms: 40, throughput: 9.5 }],
  },
};

function sampleDir(extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "report-test-"));
  for (const [name, data] of Object.entries(SAMPLES)) writeFileSync(join(dir, `${name}.json`), JSON.stringify(data));
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(dir, file), text);
  return dir;
}

/** The HTML of each <section>, by benchmark name. */
function sectionsOf(html: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of html.matchAll(/<section id="section-([^"]+)"[^>]*>([\s\S]*?)<\/section>/g)) out.set(m[1]!, m[2]!);
  return out;
}

function scripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

/** Runs the page's chart script with a stub Chart and document; returns the configurations drawn. */
function runChartScript(html: string): { id: string; config: any }[] {
  const drawn: { id: string; config: any }[] = [];
  const ids = new Set([...html.matchAll(/<canvas id="([^"]+)"/g)].map((m) => m[1]!));
  const context = vm.createContext({
    Chart: function (el: { id: string }, config: unknown) {
      drawn.push({ id: el.id, config });
    },
    document: { getElementById: (id: string) => (ids.has(id) ? { id } : { id, hidden: true }) },
  });
  vm.runInContext(scripts(html).at(-1)!, context);
  return drawn;
}

test("renders every sample result as a section with a chart; malformed files become error rows", () => {
  const dir = sampleDir({ "broken.json": "{ not json", "list.json": "[1, 2, 3]", "notes.txt": "ignored" });
  try {
    const report = renderReport({ dir, generatedAt: new Date(0) });
    const html = report.html;
    assert.ok(html.startsWith("<!doctype html>"));
    // The Chart.js bundle itself is inline (no external script or stylesheet).
    assert.ok(html.includes("Chart.js v4"), "Chart.js banner missing");
    assert.ok(!/<script[^>]+src=/.test(html) && !/<link[^>]+href=/.test(html), "page loads external resources");
    assert.equal(report.sections.length, Object.keys(SAMPLES).length);
    const sections = sectionsOf(html);
    for (const name of Object.keys(SAMPLES)) {
      const body = sections.get(name);
      assert.ok(body !== undefined, `no section for ${name}`);
      assert.ok((body.match(/<canvas /g) ?? []).length >= 1, `no canvas in ${name}`);
    }
    // Error rows for the unreadable files; the report still renders.
    const errors = report.files.filter((f) => f.status === "error");
    assert.deepEqual(errors.map((f) => f.file).sort(), ["broken.json", "list.json"]);
    assert.match(html, /<tr class="error"><td>broken\.json<\/td>.*invalid JSON/);
    assert.match(html, /<tr class="error"><td>list\.json<\/td>.*expected a JSON object, got an array/);
    assert.ok(!sections.has("broken") && !sections.has("list"));
    assert.ok(!html.includes("notes.txt"));
    // Known shapes get their own renderers; the unknown one is generic.
    const status = Object.fromEntries(report.files.map((f) => [f.name, f.status]));
    for (const name of ["primitives", "memory", "prepare", "verify", "batch", "size", "registry", "prove"])
      assert.equal(status[name], "ok", name);
    assert.equal(status["serving"], "generic");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the page's chart script draws one chart per canvas, each subtitled with its conditions line", () => {
  const dir = sampleDir();
  try {
    const { html } = renderReport({ dir });
    const canvases = [...html.matchAll(/<canvas id="([^"]+)"/g)].map((m) => m[1]!);
    const drawn = runChartScript(html);
    assert.deepEqual(
      drawn.map((d) => d.id),
      canvases,
    );
    for (const d of drawn) {
      assert.ok(
        typeof d.config.options.plugins.title.text === "string" && d.config.options.plugins.title.text.length > 0,
      );
      const subtitle = (d.config.options.plugins.subtitle.text as string[]).join(" ");
      assert.ok(
        subtitle.includes("Test CPU") && subtitle.includes("load 0.5") && subtitle.includes("2026-01-01"),
        subtitle,
      );
    }
    // Log axes never receive values they cannot show.
    for (const d of drawn) {
      if (d.config.options.scales?.y?.type !== "logarithmic" || d.config.type !== "bar") continue;
      for (const ds of d.config.data.datasets) for (const v of ds.data) assert.ok(v === null || v > 0);
    }
    // The size chart carries the bytes of each kind per depth.
    const size = drawn.find((d) => String(d.config.options.plugins.title.text).startsWith("Encoded proof size"))!;
    assert.deepEqual(Array.from(size.config.data.datasets[0].data), [176948, 182132]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the inlined bundle defines Chart when evaluated", () => {
  const dir = sampleDir();
  try {
    const { html } = renderReport({ dir });
    const context = vm.createContext({});
    vm.runInContext(scripts(html)[0]!, context);
    assert.equal(typeof (context as { Chart?: unknown }).Chart, "function");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a known benchmark of an unexpected shape falls back to tables; odd values do not throw", () => {
  const dir = sampleDir({
    "verify.json": JSON.stringify({ conditions: "not an object", rows: "nope", total: 3 }),
    "prepare.json": JSON.stringify({
      conditions: CONDITIONS,
      kinds: [{ kind: 7, depth: "x", compileMs: { median: "slow" } }],
      nested: { a: { b: { c: { d: { e: 1 } } } } },
    }),
    "empty.json": "{}",
    "weird.json": JSON.stringify({
      conditions: CONDITIONS,
      "<script>alert(1)</script>": "</script><b>",
      list: [1, "a", null, { x: 1 }],
      big: 1e300,
    }),
  });
  try {
    const report = renderReport({ dir });
    const sections = sectionsOf(report.html);
    const verify = report.files.find((f) => f.name === "verify")!;
    assert.equal(verify.status, "generic");
    assert.match(verify.message ?? "", /rows/);
    assert.ok((sections.get("verify")!.match(/<canvas /g) ?? []).length === 1, "generic chart of the numeric fields");
    assert.ok(sections.get("verify")!.includes("# conditions not recorded"));
    assert.ok(sections.get("empty")!.includes("no numeric values to chart"));
    // User text is escaped: no injected elements.
    assert.ok(!sections.get("weird")!.includes("<script>") && !sections.get("weird")!.includes("<b>"));
    assert.equal(scripts(report.html).length, 2);
    runChartScript(report.html);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a missing or empty results folder renders a page with no sections", () => {
  const missing = join(tmpdir(), `report-test-missing-${process.pid}`);
  const report = renderReport({ dir: missing, chartJs: "/* stub */" });
  assert.equal(report.sections.length, 0);
  assert.ok(report.html.includes("0 section(s)"));
});

test("npm run bench -- report: writes the page and ends with the {report, sections} line", () => {
  const dir = sampleDir({ "broken.json": "{" });
  try {
    const script = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "report.js");
    const out = join(dir, "page.html");
    const r = spawnSync(process.execPath, [script, "--dir", dir, "--out", out], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines[0], out);
    const last = JSON.parse(lines.at(-1)!);
    assert.deepEqual(last, { report: out, sections: Object.keys(SAMPLES).length, errors: 1 });
    assert.ok(existsSync(out));
    assert.ok(readFileSync(out, "utf8").includes(chartJsSource().slice(0, 200)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
