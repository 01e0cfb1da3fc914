/**
 * The generic section: any parsed results file as tables (scalar fields; arrays of objects) and one
 * bar chart of its numbers — the file's `headline` object if it has one, else the medians of the
 * first array of rows, else its numeric fields.
 */
import { barChart, wideRange } from "./charts.js";
import { fmtNumber, summaryCell } from "./format.js";
import { isRecord, num, summary } from "./json-read.js";
import type { Cell, ChartSpec, Section, Table } from "./model.js";

const MAX_SCALARS = 200;
const MAX_ROW_TABLES = 6;
const MAX_ROWS = 200;
const MAX_COLUMNS = 24;
const MAX_CHART_BARS = 40;
const MAX_CHART_SERIES = 8;

function isSummary(v: unknown): boolean {
  return (
    isRecord(v) &&
    num(v["median"]) !== undefined &&
    Object.keys(v).every((k) => ["median", "min", "max", "runs", "callsPerSample", "samples"].includes(k))
  );
}

/** A short text of an array of scalars. */
function scalarList(v: readonly unknown[]): string {
  const shown = v.slice(0, 16).map((x) => (typeof x === "number" ? fmtNumber(x) : String(x)));
  return `[${shown.join(", ")}${v.length > 16 ? `, … (${v.length})` : ""}]`;
}

interface Walk {
  scalars: [string, Cell][];
  numbers: [string, number][];
  rowArrays: [string, Record<string, unknown>[]][];
}

function walk(v: unknown, path: string, depth: number, out: Walk): void {
  if (v === null || typeof v === "string" || typeof v === "boolean") {
    out.scalars.push([path, v]);
  } else if (typeof v === "number") {
    out.scalars.push([path, v]);
    if (Number.isFinite(v)) out.numbers.push([path, v]);
  } else if (isSummary(v)) {
    out.scalars.push([path, summaryCell(v)]);
    out.numbers.push([path, summary(v)!.median]);
  } else if (Array.isArray(v)) {
    if (v.length > 0 && v.every(isRecord)) out.rowArrays.push([path, v as Record<string, unknown>[]]);
    else if (v.every((x) => x === null || typeof x !== "object")) out.scalars.push([path, scalarList(v)]);
    else out.scalars.push([path, `array of ${v.length} mixed values`]);
  } else if (isRecord(v)) {
    if (depth >= 4) {
      out.scalars.push([path, "{…}"]);
      return;
    }
    for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k, depth + 1, out);
  } else {
    out.scalars.push([path, String(v)]);
  }
}

/** Flattened columns of one row object: nested objects as `a.b`, summaries as one cell. */
function flattenRow(
  row: Record<string, unknown>,
  prefix = "",
  out: Map<string, unknown> = new Map(),
  depth = 0,
): Map<string, unknown> {
  for (const [k, v] of Object.entries(row)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isRecord(v) && !isSummary(v) && depth < 2) flattenRow(v, key, out, depth + 1);
    else out.set(key, v);
  }
  return out;
}

function rowCell(v: unknown): Cell {
  if (v === null || v === undefined || typeof v === "string" || typeof v === "number" || typeof v === "boolean")
    return v;
  if (isSummary(v)) return summaryCell(v);
  if (Array.isArray(v))
    return v.every((x) => x === null || typeof x !== "object") ? scalarList(v) : `array of ${v.length}`;
  return "{…}";
}

/** A table of an array of row objects (columns: union of flattened keys, first seen first). */
export function rowsTable(caption: string, rows: readonly Record<string, unknown>[]): Table {
  const flat = rows.slice(0, MAX_ROWS).map((r) => flattenRow(r));
  const columns: string[] = [];
  for (const f of flat)
    for (const k of f.keys()) if (!columns.includes(k) && columns.length < MAX_COLUMNS) columns.push(k);
  const more = rows.length > MAX_ROWS ? ` (first ${MAX_ROWS} of ${rows.length})` : "";
  return { caption: caption + more, columns, rows: flat.map((f) => columns.map((c) => rowCell(f.get(c)))) };
}

/** A label for a row: its kind/family/op/name fields and depth/width/size/workers, if any. */
export function rowLabel(row: Record<string, unknown>, index: number): string {
  const parts: string[] = [];
  for (const k of ["kind", "family", "op", "name", "oracle", "mode"])
    if (typeof row[k] === "string") parts.push(row[k] as string);
  for (const [k, fmt] of [
    ["depth", (x: number) => `d${x}`],
    ["widthBits", (x: number) => `2^${x}`],
    ["logSize", (x: number) => `2^${x}`],
    ["workers", (x: number) => `${x}w`],
    ["batch", (x: number) => `batch ${x}`],
  ] as const) {
    const n = num(row[k]);
    if (n !== undefined) parts.push(fmt(n));
  }
  return parts.length > 0 ? parts.join(" ") : `#${index + 1}`;
}

/** Numeric columns (numbers or summaries) of rows, in first-seen order. */
function numericColumns(rows: readonly Record<string, unknown>[]): string[] {
  const cols: string[] = [];
  const skip = new Set([
    "depth",
    "widthBits",
    "width",
    "logSize",
    "workers",
    "runs",
    "callsPerSample",
    "layers",
    "gates",
  ]);
  for (const r of rows) {
    for (const [k, v] of flattenRow(r)) {
      if (skip.has(k.split(".").pop()!) || cols.includes(k)) continue;
      if (summary(v) !== undefined) cols.push(k);
    }
  }
  return cols;
}

/** The generic chart of a results object, or undefined when it holds no numbers. */
export function genericChart(data: Record<string, unknown>, name: string): ChartSpec | undefined {
  const headline = data["headline"];
  if (isRecord(headline)) {
    const entries = Object.entries(headline)
      .filter(([, v]) => num(v) !== undefined)
      .slice(0, MAX_CHART_BARS);
    if (entries.length > 0) {
      const values = entries.map(([, v]) => v as number);
      return barChart({
        title: `${name}: headline`,
        labels: entries.map(([k]) => k),
        series: [{ label: "value", values }],
        logY: wideRange(values),
      });
    }
  }
  const w: Walk = { scalars: [], numbers: [], rowArrays: [] };
  walk(withoutConditions(data), "", 0, w);
  for (const [path, rows] of w.rowArrays) {
    const cols = numericColumns(rows).slice(0, MAX_CHART_SERIES);
    if (cols.length === 0) continue;
    const shown = rows.slice(0, MAX_CHART_BARS);
    const flat = shown.map((r) => flattenRow(r));
    const series = cols.map((c) => ({ label: c, values: flat.map((f) => summary(f.get(c))?.median) }));
    return barChart({
      title: `${name}: ${path} (medians)`,
      labels: shown.map((r, i) => rowLabel(r, i)),
      series,
      logY: wideRange(series.flatMap((s) => s.values)),
    });
  }
  if (w.numbers.length > 0) {
    const entries = w.numbers.slice(0, MAX_CHART_BARS);
    const values = entries.map(([, v]) => v);
    return barChart({
      title: `${name}: numeric fields`,
      labels: entries.map(([k]) => k),
      series: [{ label: "value", values }],
      logY: wideRange(values),
    });
  }
  return undefined;
}

function withoutConditions(data: Record<string, unknown>): Record<string, unknown> {
  const { conditions: _c, ...rest } = data;
  return rest;
}

/** Tables of a results object: its scalar fields, then each array of row objects. */
export function genericTables(data: Record<string, unknown>): Table[] {
  const w: Walk = { scalars: [], numbers: [], rowArrays: [] };
  walk(withoutConditions(data), "", 0, w);
  const tables: Table[] = [];
  if (w.scalars.length > 0) {
    const more = w.scalars.length > MAX_SCALARS ? ` (first ${MAX_SCALARS} of ${w.scalars.length})` : "";
    tables.push({
      caption: `fields${more}`,
      columns: ["field", "value"],
      rows: w.scalars.slice(0, MAX_SCALARS).map(([k, v]) => [k, v]),
    });
  }
  for (const [path, rows] of w.rowArrays.slice(0, MAX_ROW_TABLES)) tables.push(rowsTable(path, rows));
  return tables;
}

/** The generic section of a parsed results object. */
export function genericSection(
  data: Record<string, unknown>,
  context: { name: string; file: string; conditions: string },
  notes: readonly string[] = [],
): Section {
  const chart = genericChart(data, context.name);
  return {
    name: context.name,
    file: context.file,
    title: context.name,
    conditions: context.conditions,
    notes: chart ? [...notes] : [...notes, "no numeric values to chart"],
    charts: chart ? [chart] : [],
    tables: genericTables(data),
  };
}
