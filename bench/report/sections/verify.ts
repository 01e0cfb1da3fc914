/**
 * bench/results/verify.json: verification with table wiring vs derived wiring per kind and depth.
 */
import { barChart } from "../charts.js";
import { fmtNumber, summaryCell } from "../format.js";
import { isRecord, median, needRecords, num, str } from "../json-read.js";
import type { ChartSpec, SectionRenderer } from "../model.js";

export const verifySection: SectionRenderer = (data, ctx) => {
  const rows = needRecords(data, "rows");
  const labels = rows.map((r) => `${str(r["kind"]) ?? "?"} d${num(r["depth"]) ?? "?"}`);
  const table = rows.map((r) => median(r["verifyTableMs"]));
  const derived = rows.map((r) => median(r["verifyDerivedMs"]));
  if (table.every((x) => x === undefined) && derived.every((x) => x === undefined))
    throw new Error("rows carry no verifyTableMs or verifyDerivedMs");
  const charts: ChartSpec[] = [
    barChart({
      title: "Verify one proof, ms (median): table wiring vs derived wiring",
      labels,
      series: [
        { label: "table wiring", values: table },
        { label: "derived wiring", values: derived },
      ],
      yTitle: "ms",
    }),
  ];
  const parts = ["statement", "transcript", "wiring", "sumcheck", "inputMle", "other"];
  if (rows.some((r) => isRecord(r["splitDerivedMs"]))) {
    charts.push(
      barChart({
        title: "Where derived-wiring verification spends its time, ms (stacked)",
        labels,
        // "other" is the total less the parts, each a median of separate replays: it can come out
        // slightly negative, which a stacked bar cannot show; it is drawn at 0 then.
        series: parts.map((p) => ({
          label: p,
          values: rows.map((r) => {
            const v = num((r["splitDerivedMs"] as Record<string, unknown> | undefined)?.[p]);
            return v !== undefined && p === "other" ? Math.max(0, v) : v;
          }),
        })),
        yTitle: "ms",
        stacked: true,
      }),
    );
  }
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Verify: table vs derived wiring",
    conditions: ctx.conditions,
    notes: rows.some((r) => isRecord(r["splitDerivedMs"]))
      ? ['split: medians of separate replays of each part; "other" = total − parts (drawn at 0 when negative)']
      : [],
    charts,
    tables: [
      {
        caption: "ms per verification: median (min–max)",
        columns: ["kind", "depth", "layers", "gates", "table wiring", "derived wiring", "table / derived"],
        rows: rows.map((r, i) => [
          str(r["kind"]),
          num(r["depth"]),
          num(r["layers"]),
          num(r["gates"]),
          summaryCell(r["verifyTableMs"]),
          summaryCell(r["verifyDerivedMs"]),
          num(r["ratio"]) !== undefined
            ? `${fmtNumber(num(r["ratio"])!)}×`
            : table[i] !== undefined && derived[i] !== undefined
              ? `${fmtNumber(table[i]! / derived[i]!)}×`
              : "",
        ]),
      },
    ],
  };
};
