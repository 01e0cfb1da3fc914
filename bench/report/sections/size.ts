/**
 * bench/results/size.json: encoded proof bytes per kind and depth against the §14.1 formula and
 * the §18 sizes.
 */
import { barChart } from "../charts.js";
import { fmtNumber } from "../format.js";
import { isRecord, needRecords, num, str } from "../json-read.js";
import type { SectionRenderer } from "../model.js";

export const sizeSection: SectionRenderer = (data, ctx) => {
  const rows = needRecords(data, "rows");
  const depths = [...new Set(rows.map((r) => num(r["depth"])).filter((d): d is number => d !== undefined))].sort(
    (a, b) => a - b,
  );
  const kinds = [...new Set(rows.map((r) => str(r["kind"]) ?? "?"))];
  const bytesOf = (k: string, d: number) => num(rows.find((r) => r["kind"] === k && r["depth"] === d)?.["bytes"]);
  const notes: string[] = [];
  const growth = data["growthPct"];
  if (isRecord(growth) && isRecord(growth["byKind"])) {
    const parts = Object.entries(growth["byKind"])
      .filter(([, v]) => num(v) !== undefined)
      .map(([k, v]) => `${k} +${(v as number).toFixed(2)} %`);
    if (parts.length > 0)
      notes.push(
        `growth d${num(growth["from"]) ?? "?"} → d${num(growth["to"]) ?? "?"}: ${parts.join(", ")} (spec: membership 24 → 32 +2.93 %)`,
      );
  }
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Proof size: inner-proof-v1 bytes per kind and depth",
    conditions: ctx.conditions,
    notes,
    charts: [
      barChart({
        title: "Encoded proof size, bytes (golden fixture F(kind, depth, 5))",
        labels: depths.map((d) => `depth ${d}`),
        series: kinds.map((k) => ({ label: k, values: depths.map((d) => bytesOf(k, d)) })),
        yTitle: "bytes",
        beginAtZero: false,
      }),
    ],
    tables: [
      {
        caption: "bytes; formula 170 + Σ_layers (36 + 162·s_in); spec = compat-v1 §18 (depth 24)",
        columns: ["kind", "depth", "layers", "gates", "bytes", "formula", "spec §18", "matches"],
        rows: rows.map((r) => {
          const bytes = num(r["bytes"]),
            formula = num(r["formulaBytes"]),
            spec = num(r["specBytes"]);
          const ok =
            bytes !== undefined &&
            (formula === undefined || formula === bytes) &&
            (spec === undefined || spec === bytes);
          return [
            str(r["kind"]),
            num(r["depth"]),
            num(r["layers"]),
            num(r["gates"]),
            bytes,
            formula,
            spec ?? "—",
            bytes === undefined ? "" : ok ? "yes" : "NO",
          ];
        }),
      },
      ...(rows.some((r) => isRecord(r["inputBitsHistogram"]))
        ? [
            {
              caption: "layers per input width bits s_in",
              columns: ["kind", "depth", "layers × s_in"],
              rows: rows.map((r) => [
                str(r["kind"]),
                num(r["depth"]),
                isRecord(r["inputBitsHistogram"])
                  ? Object.entries(r["inputBitsHistogram"])
                      .map(([s, n]) => `${fmtNumber(Number(n))}×${s}`)
                      .join("  ")
                  : "",
              ]),
            },
          ]
        : []),
    ],
  };
};
