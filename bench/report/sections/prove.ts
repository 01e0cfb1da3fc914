/**
 * bench/results/prove.json: proving time, fresh (compile + commit + prove) vs prepared (prove with
 * a prepared circuit). The row fields are found by name: the first field whose name contains
 * "fresh" and the first containing "prepared" (numbers or {median, min, max} summaries).
 */
import { barChart } from "../charts.js";
import { fmtNumber } from "../format.js";
import { rowLabel, rowsTable } from "../generic.js";
import { at, isRecord, median, ReportShapeError } from "../json-read.js";
import type { SectionRenderer } from "../model.js";

function rowsOf(data: Record<string, unknown>): { path: string; rows: Record<string, unknown>[] } {
  for (const path of ["rows", "kinds", "points", "results"]) {
    const v = at(data, path);
    if (Array.isArray(v) && v.length > 0 && v.every(isRecord)) return { path, rows: v as Record<string, unknown>[] };
  }
  throw new ReportShapeError("rows", "an array of row objects (rows, kinds, points or results)");
}

function fieldLike(rows: readonly Record<string, unknown>[], pattern: RegExp): string | undefined {
  for (const r of rows)
    for (const [k, v] of Object.entries(r)) if (pattern.test(k) && median(v) !== undefined) return k;
  return undefined;
}

export const proveSection: SectionRenderer = (data, ctx) => {
  const { path, rows } = rowsOf(data);
  const fresh = fieldLike(rows, /fresh/i);
  const prepared = fieldLike(rows, /prepared/i);
  if (fresh === undefined && prepared === undefined)
    throw new ReportShapeError(`${path}[].*`, "fields named …fresh… or …prepared…");
  const series = [fresh, prepared]
    .filter((k): k is string => k !== undefined)
    .map((k) => ({ label: k, values: rows.map((r) => median(r[k])) }));
  const notes: string[] = [];
  if (fresh && prepared) {
    const ratios = rows
      .map((r) => {
        const a = median(r[fresh]),
          b = median(r[prepared]);
        return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
      })
      .filter((x): x is number => x !== undefined);
    if (ratios.length > 0)
      notes.push(
        `fresh / prepared: ${fmtNumber(Math.min(...ratios))}–${fmtNumber(Math.max(...ratios))}× (reference engine: prepared 3.5–4.5× faster than fresh)`,
      );
  }
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Prove: fresh vs prepared",
    conditions: ctx.conditions,
    notes,
    charts: [
      barChart({
        title: "Prove one request, ms (median): fresh vs prepared",
        labels: rows.map((r, i) => rowLabel(r, i)),
        series,
        yTitle: "ms",
      }),
    ],
    tables: [rowsTable(path, rows)],
  };
};
