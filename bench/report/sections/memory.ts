/**
 * bench/results/memory.json: sparse vs dense layer oracles, peak RSS and prove time against the
 * layer width.
 */
import { xyChart } from "../charts.js";
import { isRecord, needRecords, num, str } from "../json-read.js";
import type { SectionRenderer, Table } from "../model.js";

interface Point {
  family: string;
  oracle: string;
  width: number;
  rss: number | undefined;
  proveMs: number | undefined;
  ok: boolean;
  failure: string | undefined;
}

export const memorySection: SectionRenderer = (data, ctx) => {
  const all: Point[] = [];
  for (const key of ["sweep", "sparseExtent", "denseTablesOnly"]) {
    const arr = data[key];
    if (!Array.isArray(arr)) continue;
    for (const r of arr) {
      if (!isRecord(r)) continue;
      const width = num(r["width"]) ?? (num(r["widthBits"]) !== undefined ? 2 ** num(r["widthBits"])! : undefined);
      if (width === undefined) continue;
      all.push({
        family: str(r["family"]) ?? "?",
        oracle: str(r["oracle"]) ?? "?",
        width,
        rss: num(r["peakRssMiB"]),
        proveMs: num(r["proveMs"]),
        ok: r["ok"] !== false,
        failure: str(r["failure"]),
      });
    }
  }
  if (all.length === 0) needRecords(data, "sweep");
  const groups = new Map<string, Point[]>();
  for (const p of all) {
    const k = `${p.family} ${p.oracle}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(p);
  }
  const families = [...new Set(all.map((p) => p.family))];
  const series = (pick: (p: Point) => number | undefined) =>
    [...groups].map(([label, pts]) => {
      const oracle = pts[0]!.oracle;
      return {
        label,
        dash: oracle === "sparse" ? undefined : oracle === "dense" ? [6, 4] : [2, 3],
        colourIndex: families.indexOf(pts[0]!.family),
        points: pts.filter((p) => p.ok && pick(p) !== undefined).map((p) => ({ x: p.width, y: pick(p)! })),
      };
    });
  const headline = data["headline"];
  const tables: Table[] = [];
  if (isRecord(headline))
    tables.push({
      caption: "headline",
      columns: ["key", "value"],
      rows: Object.entries(headline).map(([k, v]) => [
        k,
        typeof v === "object" ? JSON.stringify(v) : (v as string | number | boolean | null),
      ]),
    });
  const failures = all.filter((p) => !p.ok);
  if (failures.length > 0)
    tables.push({
      caption: "runs that failed (cap reached)",
      columns: ["family", "oracle", "width", "peak RSS MiB", "failure"],
      rows: failures.map((p) => [p.family, p.oracle, p.width, p.rss, p.failure]),
    });
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Memory: sparse vs dense layer oracle",
    conditions: ctx.conditions,
    notes: [
      "solid lines: sparse oracle; dashed: dense; dotted: dense tables only (setup without proving); failed runs (time/RSS caps) are left out of the lines and listed below",
    ],
    charts: [
      xyChart({
        title: "Peak RSS vs layer width (log–log)",
        series: series((p) => p.rss),
        xTitle: "width (gates)",
        yTitle: "peak RSS (MiB)",
        logX: true,
        logY: true,
      }),
      xyChart({
        title: "Prove time vs layer width (log–log)",
        series: series((p) => p.proveMs),
        xTitle: "width (gates)",
        yTitle: "prove (ms)",
        logX: true,
        logY: true,
      }),
    ],
    tables,
  };
};
