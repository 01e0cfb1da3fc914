/**
 * Renders every results file of a folder into one self-contained HTML page.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { conditionsText } from "./conditions.js";
import { genericSection } from "./generic.js";
import { type FileStatus, pageHtml } from "./html.js";
import { loadResults } from "./load.js";
import type { Section, SectionRenderer } from "./model.js";
import { SECTION_ORDER, SECTION_RENDERERS } from "./sections/index.js";

/** Path of Chart.js's UMD bundle in node_modules (the package's main entry sits beside it). */
export function chartJsPath(): string {
  const main = createRequire(import.meta.url).resolve("chart.js");
  return join(dirname(main), "chart.umd.js");
}

/** The Chart.js UMD bundle source. @throws Error if chart.js is not installed. */
export function chartJsSource(): string {
  try {
    return readFileSync(chartJsPath(), "utf8");
  } catch (err) {
    throw new Error(`the report needs chart.js (npm install): ${(err as Error).message}`);
  }
}

export interface ReportOptions {
  /** The results folder (every `*.json` in it is rendered). */
  readonly dir: string;
  /** Chart.js UMD source (default: read from node_modules). */
  readonly chartJs?: string;
  /** Page title (default "statesync-gkr benchmarks"). */
  readonly title?: string;
  /** Generation time shown on the page (default now). */
  readonly generatedAt?: Date;
}

export interface Report {
  readonly html: string;
  readonly sections: readonly Section[];
  /** Every file with its status (ok, generic, error). */
  readonly files: readonly FileStatus[];
}

function orderKey(name: string): [number, string] {
  const i = SECTION_ORDER.indexOf(name);
  return [i < 0 ? SECTION_ORDER.length : i, name];
}

/**
 * Renders the results folder. Known benchmarks get their own charts; other files (and known ones
 * whose shape is not recognised) get the generic tables and chart; unreadable files are listed as
 * error rows. Never throws for bad result files.
 */
export function renderReport(options: ReportOptions): Report {
  const loaded = loadResults(options.dir).sort((a, b) => {
    const [ia, na] = orderKey(a.name),
      [ib, nb] = orderKey(b.name);
    return ia - ib || (na < nb ? -1 : na > nb ? 1 : 0);
  });
  const sections: Section[] = [];
  const files: FileStatus[] = [];
  for (const r of loaded) {
    if (r.data === undefined) {
      files.push({ file: r.file, name: r.name, status: "error", message: r.error ?? "unreadable" });
      continue;
    }
    const ctx = { name: r.name, file: r.file, conditions: conditionsText(r.data["conditions"]) };
    const renderer: SectionRenderer | undefined = Object.hasOwn(SECTION_RENDERERS, r.name)
      ? SECTION_RENDERERS[r.name]
      : undefined;
    let section: Section | undefined;
    let fallback: string | undefined;
    if (renderer) {
      try {
        section = renderer(r.data, ctx);
      } catch (err) {
        fallback = `shape not recognised (${(err as Error).message})`;
      }
    }
    if (section === undefined) {
      try {
        section = genericSection(r.data, ctx, fallback ? [`${fallback}; shown as tables`] : []);
        fallback ??= renderer ? undefined : "no dedicated renderer";
      } catch (err) {
        files.push({
          file: r.file,
          name: r.name,
          status: "error",
          message: `cannot render: ${(err as Error).message}`,
          conditions: ctx.conditions,
        });
        continue;
      }
    }
    sections.push(section);
    files.push({
      file: r.file,
      name: r.name,
      status: fallback ? "generic" : "ok",
      ...(fallback ? { message: fallback } : {}),
      conditions: ctx.conditions,
    });
  }
  const html = pageHtml({
    title: options.title ?? "statesync-gkr benchmarks",
    generatedAt: (options.generatedAt ?? new Date()).toISOString(),
    sourceDir: options.dir,
    sections,
    files,
    chartJs: options.chartJs ?? chartJsSource(),
  });
  return { html, sections, files };
}
