/**
 * The report page: one self-contained HTML document (styles, the Chart.js UMD bundle, the chart
 * configurations and tables inline), so that it opens offline from a file:// URL.
 */
import { wrapLine } from "./conditions.js";
import { fmtNumber } from "./format.js";
import type { Cell, Section, Table } from "./model.js";

/** A row of the files overview. */
export interface FileStatus {
  readonly file: string;
  readonly name: string;
  /** "ok", "generic" (shown as tables) or the error message. */
  readonly status: "ok" | "generic" | "error";
  readonly message?: string;
  readonly conditions?: string;
}

export interface PageInput {
  readonly title: string;
  readonly generatedAt: string;
  readonly sourceDir: string;
  readonly sections: readonly Section[];
  readonly files: readonly FileStatus[];
  /** The Chart.js UMD bundle source. */
  readonly chartJs: string;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** JSON that is safe inside a <script> element. */
export function scriptJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** JavaScript source made safe to inline in a <script> element (no closing tag, no source map link). */
export function inlineScript(source: string): string {
  return source.replace(/^\/\/# sourceMappingURL=.*$/gm, "").replace(/<\/script/gi, "<\\/script");
}

function cellHtml(c: Cell): string {
  if (c === null || c === undefined) return "";
  if (typeof c === "number") return `<td class="num">${escapeHtml(fmtNumber(c))}</td>`;
  if (typeof c === "boolean") return `<td>${c ? "yes" : "no"}</td>`;
  return `<td>${escapeHtml(c)}</td>`;
}

function tableHtml(t: Table): string {
  const head = t.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
  const body = t.rows
    .map(
      (r) =>
        `<tr>${t.columns.map((_, i) => (r[i] === null || r[i] === undefined ? "<td></td>" : cellHtml(r[i]))).join("")}</tr>`,
    )
    .join("\n");
  return `<table><caption>${escapeHtml(t.caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 2.2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.meta, .conditions { color: #666; font-size: 0.9em; }
.conditions { font-family: ui-monospace, monospace; }
.note { color: #555; font-style: italic; margin: 0.3em 0; }
.chart { position: relative; width: 100%; margin: 1em 0 1.5em; }
table { border-collapse: collapse; margin: 0.8em 0 1.2em; font-size: 0.88em; }
caption { text-align: left; font-weight: 600; padding: 0.3em 0; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.error td { color: #a00; }
tr.generic td { color: #850; }
#chart-missing { color: #a00; font-weight: 600; }
`;

/** The complete page. */
export function pageHtml(p: PageInput): string {
  const charts: { id: string; config: unknown }[] = [];
  const sectionsHtml = p.sections.map((s, si) => {
    const canvases = s.charts.map((c, ci) => {
      const id = `chart-${si}-${ci}`;
      const config = JSON.parse(JSON.stringify(c.config)) as { options?: { plugins?: Record<string, unknown> } };
      config.options ??= {};
      config.options.plugins ??= {};
      config.options.plugins["subtitle"] = {
        display: true,
        text: wrapLine(s.conditions),
        font: { size: 11 },
        padding: { bottom: 8 },
      };
      charts.push({ id, config });
      return `<div class="chart"><canvas id="${id}" role="img" aria-label="${escapeHtml(c.title)}"></canvas></div>`;
    });
    return [
      `<section id="section-${escapeHtml(s.name)}" data-file="${escapeHtml(s.file)}">`,
      `<h2>${escapeHtml(s.title)}</h2>`,
      `<div class="meta">${escapeHtml(s.file)}</div>`,
      `<div class="conditions">${escapeHtml(s.conditions)}</div>`,
      ...s.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`),
      ...canvases,
      ...s.tables.map(tableHtml),
      `</section>`,
    ].join("\n");
  });
  const overview = p.files
    .map((f) => {
      const status =
        f.status === "ok"
          ? "ok"
          : f.status === "generic"
            ? `shown as tables: ${f.message ?? ""}`
            : `error: ${f.message ?? ""}`;
      const link =
        f.status === "error"
          ? escapeHtml(f.name)
          : `<a href="#section-${escapeHtml(f.name)}">${escapeHtml(f.name)}</a>`;
      return `<tr class="${f.status}"><td>${escapeHtml(f.file)}</td><td>${link}</td><td>${escapeHtml(status)}</td><td class="conditions">${escapeHtml(f.conditions ?? "")}</td></tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(p.title)}</title>
<style>${STYLE}</style>
<script>
${inlineScript(p.chartJs)}
</script>
</head>
<body>
<h1>${escapeHtml(p.title)}</h1>
<div class="meta">generated ${escapeHtml(p.generatedAt)} from ${escapeHtml(p.sourceDir)}; ${p.sections.length} section(s)</div>
<p id="chart-missing" hidden>Chart.js did not load: charts are not drawn (tables are complete).</p>
<table id="files"><caption>result files</caption><thead><tr><th>file</th><th>benchmark</th><th>status</th><th>conditions</th></tr></thead><tbody>
${overview}
</tbody></table>
${sectionsHtml.join("\n")}
<script>
const CHARTS = ${scriptJson(charts)};
if (typeof Chart === "undefined") {
  document.getElementById("chart-missing").hidden = false;
} else {
  for (const c of CHARTS) {
    const el = document.getElementById(c.id);
    if (el) new Chart(el, c.config);
  }
}
</script>
</body>
</html>
`;
}
