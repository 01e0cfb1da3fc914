/**
 * The HTML report of one run (report.html): status, counts, latency quantiles, a latency CDF of
 * the timed offers and the pending counts over time. Charts use chart.js, whose UMD bundle is
 * inlined so the page opens offline; if the bundle cannot be found the page still holds every
 * number, with the charts' data as tables.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { LoadSummary } from "./summary.js";

/** The chart.js UMD bundle, or null if chart.js is not installed. */
export function chartJsBundle(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve("chart.js");
    return readFileSync(join(dirname(main), "chart.umd.min.js"), "utf8");
  } catch {
    return null;
  }
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** CDF points (latency ms, fraction of timed offers accepted within it), at most `max` points. */
export function cdfPoints(sortedMs: readonly number[], timedOffered: number, max = 2000): { x: number; y: number }[] {
  const n = sortedMs.length;
  if (n === 0 || timedOffered === 0) return [];
  const step = Math.max(1, Math.ceil(n / max));
  const out: { x: number; y: number }[] = [];
  for (let i = 0; i < n; i += step) out.push({ x: sortedMs[i]!, y: (i + 1) / timedOffered });
  if ((n - 1) % step !== 0) out.push({ x: sortedMs[n - 1]!, y: n / timedOffered });
  return out;
}

const fmtNum = (v: number | null | undefined, digits = 1): string =>
  v === null || v === undefined ? "—" : Number.isInteger(v) ? String(v) : v.toFixed(digits);

/** The report page. `sortedLatencyMs`: timed accepted latencies, ascending. */
export function renderReport(
  summary: LoadSummary,
  sortedLatencyMs: readonly number[],
  bundle: string | null = chartJsBundle(),
): string {
  const s = summary;
  const c = s.counts;
  const t = s.timed_counts;
  const cdf = cdfPoints(sortedLatencyMs, t.offered);
  const pending = s.pending_per_second;
  const row = (name: string, all: number, timed: number | string, note = "") =>
    `<tr><td>${esc(name)}</td><td>${all}</td><td>${timed}</td><td>${esc(note)}</td></tr>`;
  const statusClass = s.status === "LOAD_OBSERVATIONS_COMPLETE" ? "ok" : "fail";
  const lat = s.latency_ms;
  const within = Object.entries(s.within_ms)
    .map(([k, v]) => `<tr><td>≤ ${esc(k)} ms</td><td>${v === null ? "—" : (v * 100).toFixed(2) + " %"}</td></tr>`)
    .join("");
  const tp = s.throughput;
  const charts =
    bundle !== null
      ? `<h2>Latency CDF (timed offers)</h2><div class="chart"><canvas id="cdf"></canvas></div>
<h2>Pending over time</h2><div class="chart"><canvas id="pending"></canvas></div>
<script>${bundle.replace(/<\/script/gi, "<\\/script")}</script>
<script type="application/json" id="data">${scriptJson({ cdf, pending })}</script>
<script>
(function () {
  var d = JSON.parse(document.getElementById("data").textContent);
  new Chart(document.getElementById("cdf"), {
    type: "line",
    data: { datasets: [{ label: "fraction of timed offers accepted within x", data: d.cdf, stepped: true, pointRadius: 0, borderColor: "#2563eb" }] },
    options: { animation: false, parsing: false, scales: { x: { type: "linear", title: { display: true, text: "latency from scheduled time (ms)" } }, y: { min: 0, max: 1, title: { display: true, text: "fraction" } } } }
  });
  var series = function (key, color) { return { label: key, data: d.pending.map(function (p) { return { x: p.t_s, y: p[key] }; }), pointRadius: 0, borderColor: color }; };
  new Chart(document.getElementById("pending"), {
    type: "line",
    data: { datasets: [series("pending", "#dc2626"), series("awaiting_reply", "#2563eb"), series("verifying", "#16a34a"), series("sender_queued", "#9333ea")] },
    options: { animation: false, parsing: false, scales: { x: { type: "linear", title: { display: true, text: "time since start (s)" } }, y: { min: 0, title: { display: true, text: "jobs" } } } }
  });
})();
</script>`
      : `<p class="fail">chart.js is not installed: charts omitted (the data follow as tables).</p>
<h2>Latency CDF points (timed offers)</h2><table><tr><th>latency ms</th><th>fraction</th></tr>${cdf.map((p) => `<tr><td>${p.x.toFixed(3)}</td><td>${p.y.toFixed(4)}</td></tr>`).join("")}</table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ssgkr load ${esc(s.run_id)} — ${esc(s.status)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; max-width: 1100px; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; } td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: right; } td:first-child, th:first-child { text-align: left; }
.ok { color: #15803d; } .fail { color: #b91c1c; } .chart { height: 360px; position: relative; } code { background: #f3f4f6; padding: 0 3px; }
</style></head><body>
<h1>Open-loop load: <span class="${statusClass}">${esc(s.status)}</span></h1>
<p>run <code>${esc(s.run_id)}</code> repeat ${s.repeat}, targets ${esc((s.settings["targets"] as string[]).join(", "))}, rate ${s.settings["rate"]}/s, ${s.settings["warmup_jobs"]} warmup + ${s.settings["jobs"]} timed offers, mixture ${esc(String(s.settings["mixture"]))}, depth ${s.settings["depth"]}, deadline ${s.settings["deadline_ms"]} ms, controls ${esc(s.controls.status)}.</p>
${s.guard.tripped ? `<p class="fail">Semantic guard tripped at ${fmtNum(s.guard.offset_ms)} ms: ${esc(s.guard.reason ?? "")}</p>` : ""}
<h2>Outcomes</h2>
<table><tr><th>category</th><th>all offers</th><th>timed</th><th></th></tr>
${row("planned", s.planned, "")}
${row("offered", c.offered, t.offered)}
${row("submitted", c.submitted, t.submitted, "frames written")}
${row("accepted", c.accepted, t.accepted, "verified within the deadline")}
${row("accepted_late", c.accepted_late, t.accepted_late, "verified after the deadline")}
${row("rejected", c.rejected, t.rejected, `${c.rejected_server_error} with a server error, ${c.rejected_check} by a frontend check`)}
${row("transport_errors", c.transport_errors, t.transport_errors)}
${row("generator failures", c.generator_failures, t.generator_failures, `frontend_max_pending ${c.frontend_max_pending}, frontend_sender_queue_full_or_closed ${c.frontend_sender_queue_full_or_closed}`)}
${row("unresolved at drain", c.unresolved_at_drain, t.unresolved_at_drain)}
${row("deadline events", c.deadline_events, t.deadline_events, "overlaps with late/unresolved")}
${row("unknown responses", c.unknown_responses, "")}
${row("duplicate responses", c.duplicate_responses, "")}
</table>
<p>Every offer in exactly one outcome: <b class="${s.accounting_balanced ? "ok" : "fail"}">${s.accounting_balanced ? "yes" : "NO"}</b>.
${
  Object.keys(s.rejections_by_reason).length
    ? ` Rejections: ${esc(
        Object.entries(s.rejections_by_reason)
          .map(([k, v]) => `${k} × ${v}`)
          .join("; "),
      )}.`
    : ""
}</p>
<h2>Latency of timed accepted offers (from the scheduled time)</h2>
<table><tr><th>count</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th><th>mean ms</th></tr>
<tr><td>${lat.count}</td><td>${fmtNum(lat.p50_ms)}</td><td>${fmtNum(lat.p95_ms)}</td><td>${fmtNum(lat.p99_ms)}</td><td>${fmtNum(lat.max_ms)}</td><td>${fmtNum(lat.mean_ms)}</td></tr></table>
<table><tr><th>accepted within</th><th>of timed offers</th></tr>${within}</table>
<h2>Throughput</h2>
<table>
<tr><td>completion window (first timed offer → last timed completion, drain included)</td><td>${fmtNum(tp.window_ms)} ms</td></tr>
<tr><td>accepted per second (on time + late)</td><td>${fmtNum(tp.accepted_per_s, 3)}</td></tr>
<tr><td>accepted within the deadline per second</td><td>${fmtNum(tp.accepted_on_time_per_s, 3)}</td></tr>
<tr><td>offering ended at</td><td>${fmtNum(tp.offering_end_ms)} ms</td></tr>
<tr><td>drain</td><td>${fmtNum(tp.drain_ms)} ms (${tp.drained_empty ? "nothing left pending" : "drain-ms ran out"})</td></tr>
<tr><td>server batches seen / mean size</td><td>${s.server.batches} / ${fmtNum(s.server.mean_batch_size, 2)}</td></tr>
<tr><td>offer timer lag max / mean</td><td>${fmtNum(s.generator.offer_lag_max_ms, 2)} / ${fmtNum(s.generator.offer_lag_mean_ms, 3)} ms</td></tr>
</table>
${charts}
<h2>Pending per second</h2>
<table><tr><th>t (s)</th><th>pending</th><th>awaiting reply</th><th>verifying</th><th>sender queued</th><th>offered</th><th>accepted</th></tr>
${pending.map((p) => `<tr><td>${p.t_s.toFixed(1)}</td><td>${p.pending}</td><td>${p.awaiting_reply}</td><td>${p.verifying}</td><td>${p.sender_queued}</td><td>${p.offered}</td><td>${p.accepted}</td></tr>`).join("\n")}
</table>
</body></html>
`;
}
