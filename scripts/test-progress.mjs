// A node:test reporter: node's own output (TAP when stdout is not a terminal, as CI reads it; spec on
// a terminal) plus one progress line per finished test file — files done / total and failures so
// far — so a long run shows where it is. The summary (`# pass N`, `# fail N`, …) stays node's own,
// last. Used by `npm test` and `npm run test:quick`:
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
  started = Date.now();

  /** Takes one event; returns true when it finished a file. */
  observe(event) {
    const d = event.data ?? {};
    const isFile = d.nesting === 0 && d.file !== undefined && d.name === d.file;
    if (event.type === "test:enqueue" && isFile) this.files.add(d.file);
    if (event.type === "test:fail" && d.details?.error?.failureType !== "subtestsFailed" && !isFile) this.failedTests++;
    if (event.type === "test:complete" && isFile) {
      this.files.add(d.file);
      this.done++;
      if (d.details?.passed === false) this.failedFiles++;
      return true;
    }
    return false;
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
}

export default async function* progressReporter(source) {
  const mode = process.env.SSGKR_TEST_REPORTER ?? (process.stdout.isTTY ? "spec" : "tap");
  const progress = new Progress();
  yield* mode === "spec" ? specWithProgress(source, progress) : tapWithProgress(source, progress);
}
