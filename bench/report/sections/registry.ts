/**
 * bench/results/registry.json: bulk import of a package registry into the sparse Merkle tree.
 */
import { barChart } from "../charts.js";
import { genericTables } from "../generic.js";
import { needRecord, num } from "../json-read.js";
import type { SectionRenderer } from "../model.js";

export const registrySection: SectionRenderer = (data, ctx) => {
  const timings = needRecord(data, "report.timings");
  const entries = Object.entries(timings).filter(([, v]) => num(v) !== undefined);
  if (entries.length === 0) throw new Error("report.timings has no numbers");
  const rate = num(data["recordsPerSecond"]);
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Registry import",
    conditions: ctx.conditions,
    notes: rate !== undefined ? [`${Math.round(rate).toLocaleString("en-US")} records per second`] : [],
    charts: [
      barChart({
        title: "Import time by phase, ms (phases of parallel stages overlap; wall = elapsed)",
        labels: entries.map(([k]) => k.replace(/Ms$/, "")),
        series: [{ label: "ms", values: entries.map(([, v]) => v as number) }],
        yTitle: "ms",
      }),
    ],
    tables: genericTables(data),
  };
};
