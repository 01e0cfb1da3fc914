/**
 * One HTML page of every benchmark result present (bench/results/*.json), with charts drawn by
 * Chart.js (its UMD bundle inlined, so the page opens offline from a file:// URL).
 *
 *   npm run bench -- report [--dir bench/results] [--out <dir>/report.html]
 *
 * Known results (primitives, memory, prepare, prove, verify, batch, size, registry) get their own
 * charts; any other file, or a known one of an unexpected shape, is shown as tables with one
 * generic chart; files that cannot be read or parsed are listed as error rows. Each chart carries
 * its benchmark's conditions line as subtitle.
 *
 * Prints the output path; the last stdout line is {"report": path, "sections": n, "errors": k}.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { printHeadline, progress, resultsDir } from "./lib/index.js";
import { text, parseOptions } from "./lib/options.js";
import { renderReport } from "./report/index.js";

const args = parseOptions({ dir: text(), out: text() });
const dir = resolve(args.get("dir") ?? resultsDir());
const out = resolve(args.get("out") ?? join(dir, "report.html"));

progress(`rendering ${dir}`);
const report = renderReport({ dir });
writeFileSync(out, report.html);
for (const f of report.files) progress(`${f.file}: ${f.status}${f.message ? ` (${f.message})` : ""}`);
const errors = report.files.filter((f) => f.status === "error").length;
console.log(out);
printHeadline({ report: out, sections: report.sections.length, errors });
