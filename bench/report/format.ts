/**
 * Number and summary formatting for report tables.
 */
import { summary } from "./json-read.js";
import type { Cell } from "./model.js";

/** A summary object {median, min?, max?} shown in one cell: `median (min–max)`. */
export function summaryCell(v: unknown): Cell {
  const s = summary(v);
  if (s === undefined) return undefined;
  return s.min !== undefined && s.max !== undefined
    ? `${fmtNumber(s.median)} (${fmtNumber(s.min)}–${fmtNumber(s.max)})`
    : s.median;
}

/** Numbers for tables: integers with thousands separators, others with 3–4 significant digits. */
export function fmtNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return x.toLocaleString("en-US");
  const a = Math.abs(x);
  if (a >= 1000) return x.toLocaleString("en-US", { maximumFractionDigits: 0 });
  if (a >= 100) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toPrecision(3);
}
