/**
 * bench/results/prepare.json: compile, commitment and wiring per kind and depth.
 */
import { barChart } from "../charts.js";
import { summaryCell } from "../format.js";
import { isRecord, median, needRecords, num, str } from "../json-read.js";
import type { SectionRenderer, Table } from "../model.js";

export const prepareSection: SectionRenderer = (data, ctx) => {
  const rows = needRecords(data, "kinds");
  const labels = rows.map((r) => `${str(r["kind"]) ?? "?"} d${num(r["depth"]) ?? "?"}`);
  const phases = [
    ["compileMs", "compile"],
    ["commitmentMs", "commitment"],
    ["wiringMs", "wiring"],
  ] as const;
  const tables: Table[] = [
    {
      caption: "ms per call: median (min–max)",
      columns: ["kind", "depth", "gates", "compile", "commitment", "wiring", "prepare"],
      rows: rows.map((r) => [
        str(r["kind"]),
        num(r["depth"]),
        num(r["gates"]),
        summaryCell(r["compileMs"]),
        summaryCell(r["commitmentMs"]),
        summaryCell(r["wiringMs"]),
        summaryCell(r["prepareMs"]),
      ]),
    },
  ];
  const allKinds = data["allKinds"];
  if (Array.isArray(allKinds) && allKinds.every(isRecord)) {
    tables.push({
      caption: "all three kinds per depth (prepareAll), ms",
      columns: ["depth", "prepareAll", "commitments: two lanes", "four SIMD lanes", "one by one"],
      rows: allKinds.map((r) => [
        num(r["depth"]),
        summaryCell(r["prepareAllMs"]),
        summaryCell((r["commitments"] as Record<string, unknown> | undefined)?.["twoLanesMs"]),
        summaryCell((r["commitments"] as Record<string, unknown> | undefined)?.["fourSimdLanesMs"]),
        summaryCell((r["commitments"] as Record<string, unknown> | undefined)?.["oneByOneMs"]),
      ]),
    });
  }
  const cold = data["cold"];
  const notes: string[] = [];
  if (isRecord(cold)) {
    const a = num(cold["prepareMsMedian"]),
      b = num(cold["prepareAllMsMedian"]);
    if (a !== undefined || b !== undefined)
      notes.push(
        `cold start (fresh process, median): prepare ${a?.toFixed(1) ?? "—"} ms, prepareAll ${b?.toFixed(1) ?? "—"} ms`,
      );
  }
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Prepare: compile + commitment + wiring",
    conditions: ctx.conditions,
    notes,
    charts: [
      barChart({
        title: "Prepare phases per kind and depth, ms (median, stacked)",
        labels,
        series: phases.map(([key, label]) => ({ label, values: rows.map((r) => median(r[key])) })),
        yTitle: "ms",
        stacked: true,
      }),
    ],
    tables,
  };
};
