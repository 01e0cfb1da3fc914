/**
 * bench/results/primitives.json: field and hash primitives, TypeScript vs WASM rates.
 */
import { barChart } from "../charts.js";
import { fmtNumber, summaryCell } from "../format.js";
import { at, median, needRecords, num, str } from "../json-read.js";
import type { SectionRenderer } from "../model.js";

export const primitivesSection: SectionRenderer = (data, ctx) => {
  const rows = needRecords(data, "rows");
  const label = (r: Record<string, unknown>) => `${str(r["op"]) ?? "?"} 2^${num(r["logSize"]) ?? "?"}`;
  const ts = rows.map((r) => median(at(r, "ts.rate")));
  const wasm = rows.map((r) => median(at(r, "wasm.rate")));
  if (ts.every((x) => x === undefined) && wasm.every((x) => x === undefined))
    throw new Error("rows carry no ts.rate or wasm.rate");
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Primitives: TypeScript vs WASM (single thread)",
    conditions: ctx.conditions,
    notes: [str(data["units"]) ?? "rates in millions per second"],
    charts: [
      barChart({
        title: "Primitive rates, millions per second (median; log scale)",
        labels: rows.map(label),
        series: [
          { label: "TypeScript", values: ts },
          { label: "WASM", values: wasm },
        ],
        yTitle: "M items / s",
        logY: true,
      }),
    ],
    tables: [
      {
        caption: "rates, M/s: median (slowest–fastest)",
        columns: ["op", "size", "unit", "TypeScript", "WASM", "WASM / TS"],
        rows: rows.map((r, i) => [
          str(r["op"]),
          `2^${num(r["logSize"]) ?? "?"}`,
          str(r["unit"]),
          summaryCell(at(r, "ts.rate")),
          summaryCell(at(r, "wasm.rate")),
          ts[i] !== undefined && wasm[i] !== undefined ? `${fmtNumber(wasm[i]! / ts[i]!)}×` : "",
        ]),
      },
    ],
  };
};
