// A node:test reporter: node's own output (TAP when stdout is not a terminal, as CI reads it; spec on
// a terminal) plus one progress line per finished test file — files done / total and failures so
// far — so a long run shows where it is. Node's summary (`# pass N`, `# fail N`, …) follows, then,
// when a test failed, one recap line per failed test (file:line, name, the error's first lines), so
// the tail of a long log, which is what CI keeps, names every failure. Used by `npm test` and
// `npm run test:quick`:
//
//   node --test --test-reporter=./scripts/test-progress.mjs --test-reporter-destination=stdout FILES…
//
// SSGKR_TEST_REPORTER=tap|spec chooses the inner reporter regardless of the terminal.
import { spec, tap } from "node:test/reporters";

/** Counts of a run from node:test's events; `line()` is the progress line after a file finished. */
export class Progress {
  files = new Set();
  done = 0;
  failedFiles = 0;
  failedTests = 0;
  /** One line per failed test: `file:line name: first line of the error`. */
  failures = [];
  started = Date.now();

  /** Takes one event; returns true when it finished a file. */
  observe(event) {
    const d = event.data ?? {};
    const isFile = d.nesting === 0 && d.file !== undefined && d.name === d.file;
    if (event.type === "test:enqueue" && isFile) this.files.add(d.file);
    if (event.type === "test:fail" && d.details?.error?.failureType !== "subtestsFailed" && !isFile) {
      this.failedTests++;
      this.failures.push(failureLine(d));
    }
    if (event.type === "test:complete" && isFile) {
      this.files.add(d.file);
      this.done++;
      if (d.details?.passed === false) this.failedFiles++;
      return true;
    }
    return false;
  }

  /** The recap after node's summary: nothing when every test passed. */
  recap() {
    if (this.failures.length === 0) return [];
    return [`failed tests (${this.failures.length}):`, ...this.failures.map((f) => `  ${f}`)];
  }

  line() {
    const s = Math.round((Date.now() - this.started) / 1000);
    const failing =
      this.failedFiles + this.failedTests === 0
        ? "no failures so far"
        : `${this.failedTests} failed test${this.failedTests === 1 ? "" : "s"} in ${this.failedFiles} file${this.failedFiles === 1 ? "" : "s"} so far`;
    return `progress: ${this.done}/${this.files.size} files done, ${failing} (${s} s)`;
  }
}

/** `file:line name: message` of a test:fail event's data, the message's first three lines on one, cut to 300 characters. */
function failureLine(d) {
  const error = d.details?.error;
  const cause = error?.cause ?? error;
  const lines = String(cause?.message ?? cause ?? "failed")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const text = lines.slice(0, 3).join(" ") || "failed";
  const where = d.file === undefined ? "" : `${d.file}${d.line === undefined ? "" : `:${d.line}`} `;
  return `${where}${d.name}: ${text.trim().slice(0, 300)}`;
}

/** spec, event by event: node's spec reporter is a Transform that writes each event's lines as it takes it. */
async function* specWithProgress(source, progress) {
  const out = new spec();
  const drain = function* () {
    for (let chunk = out.read(); chunk !== null; chunk = out.read()) yield chunk;
  };
  for await (const event of source) {
    const finished = progress.observe(event);
    out.write(event);
    yield* drain();
    if (finished) yield `\u2139 ${progress.line()}\n`;
  }
  out.end();
  await new Promise((resolve) => setImmediate(resolve));
  yield* drain();
  for (const l of progress.recap()) yield `\u2716 ${l}\n`;
}

/** TAP (node's generator), with the progress lines as TAP comments after the output of the event that finished a file. */
async function* tapWithProgress(source, progress) {
  const pending = [];
  async function* watched() {
    for await (const event of source) {
      if (progress.observe(event)) pending.push(progress.line());
      yield event;
    }
  }
  const flush = function* () {
    while (pending.length > 0) yield `# ${pending.shift()}\n`;
  };
  for await (const chunk of tap(watched())) {
    yield chunk;
    yield* flush();
  }
  yield* flush();
  for (const l of progress.recap()) yield `# ${l}\n`;
}

export default async function* progressReporter(source) {
  const mode = process.env.SSGKR_TEST_REPORTER ?? (process.stdout.isTTY ? "spec" : "tap");
  const progress = new Progress();
  yield* mode === "spec" ? specWithProgress(source, progress) : tapWithProgress(source, progress);
}
