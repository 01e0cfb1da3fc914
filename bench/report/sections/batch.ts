/**
 * bench/results/batch.json: mixed-batch throughput, serial and per worker count.
 */
import { barChart } from "../charts.js";
import { summaryCell } from "../format.js";
import { at, median, needRecords, num } from "../json-read.js";
import type { SectionRenderer } from "../model.js";

export const batchSection: SectionRenderer = (data, ctx) => {
  const pools = needRecords(data, "pools");
  const serial = at(data, "serial.rate");
  const labels = ["serial", ...pools.map((p) => `${num(p["workers"]) ?? "?"} worker(s)`)];
  const prove = [median(serial), ...pools.map((p) => median(p["prove"]))];
  const verify = [undefined, ...pools.map((p) => median(p["verify"]))];
  const both = [undefined, ...pools.map((p) => median(p["proveVerify"]))];
  const depth = num(at(data, "settings.depth"));
  const perBatch = num(at(data, "settings.jobsPerBatch"));
  return {
    name: ctx.name,
    file: ctx.file,
    title: "Batch: throughput per worker count",
    conditions: ctx.conditions,
    notes: [`depth ${depth ?? "?"}, ${perBatch ?? "?"} jobs per mixed batch (all three kinds)`],
    charts: [
      barChart({
        title: "Mixed-batch throughput, per second of wall time (median)",
        labels,
        series: [
          { label: "proofs / s", values: prove },
          { label: "verifications / s", values: verify },
          { label: "prove + verify / s", values: both },
        ],
        yTitle: "per second",
      }),
    ],
    tables: [
      {
        caption: "rates per second: median (slowest–fastest)",
        columns: ["run", "prove", "verify", "prove + verify", "bytes identical to serial", "start + warm-up ms"],
        rows: [
          ["serial", summaryCell(serial), "", "", "", ""],
          ...pools.map((p) => [
            `${num(p["workers"]) ?? "?"} worker(s)`,
            summaryCell(p["prove"]),
            summaryCell(p["verify"]),
            summaryCell(p["proveVerify"]),
            p["identical"] as boolean | undefined,
            num(p["startupMs"]),
          ]),
        ],
      },
    ],
  };
};
