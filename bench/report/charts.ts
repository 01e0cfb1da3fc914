/**
 * Chart.js configurations for the report (bar charts over labels, line charts over (x, y) points),
 * as plain JSON: the section's conditions line becomes the subtitle when the page is assembled.
 */
import type { ChartConfig, ChartSpec } from "./model.js";

const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
];

/** The i-th colour of the report's palette (cycles). */
export function colour(i: number): string {
  return PALETTE[((i % PALETTE.length) + PALETTE.length) % PALETTE.length]!;
}

/** Values a log axis cannot show (≤ 0, non-finite) become gaps. */
function forLog(values: readonly (number | null | undefined)[], log: boolean): (number | null)[] {
  return values.map((v) => (v === undefined || v === null || !Number.isFinite(v) || (log && v <= 0) ? null : v));
}

function axis(title: string | undefined, log: boolean, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: log ? "logarithmic" : "linear",
    ...(title ? { title: { display: true, text: title } } : {}),
    ...extra,
  };
}

export interface BarSeries {
  readonly label: string;
  readonly values: readonly (number | null | undefined)[];
}

export interface BarOptions {
  readonly title: string;
  readonly labels: readonly string[];
  readonly series: readonly BarSeries[];
  readonly yTitle?: string;
  readonly xTitle?: string;
  readonly logY?: boolean;
  readonly stacked?: boolean;
  /** Start the value axis at zero (default true; sizes read better without). */
  readonly beginAtZero?: boolean;
}

/** A (grouped or stacked) vertical bar chart. */
export function barChart(o: BarOptions): ChartSpec {
  const log = o.logY === true;
  const config: ChartConfig = {
    type: "bar",
    data: {
      labels: [...o.labels],
      datasets: o.series.map((s, i) => ({
        label: s.label,
        data: forLog(s.values, log),
        backgroundColor: colour(i),
        borderColor: colour(i),
      })),
    },
    options: {
      responsive: true,
      animation: false,
      scales: {
        x: { stacked: o.stacked === true, ...(o.xTitle ? { title: { display: true, text: o.xTitle } } : {}) },
        y: axis(o.yTitle, log, { stacked: o.stacked === true, ...(log ? {} : { beginAtZero: o.beginAtZero ?? true }) }),
      },
      plugins: { title: { display: true, text: o.title } },
    },
  };
  return { title: o.title, config };
}

export interface XYSeries {
  readonly label: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
  /** Line dash pattern (Chart.js borderDash), e.g. [6, 4]; solid when absent. */
  readonly dash?: readonly number[];
  /** Colour index in the palette (default: the series' position). */
  readonly colourIndex?: number;
}

export interface XYOptions {
  readonly title: string;
  readonly series: readonly XYSeries[];
  readonly xTitle?: string;
  readonly yTitle?: string;
  readonly logX?: boolean;
  readonly logY?: boolean;
}

/** Lines through (x, y) points on linear or logarithmic axes. */
export function xyChart(o: XYOptions): ChartSpec {
  const logX = o.logX === true,
    logY = o.logY === true;
  const config: ChartConfig = {
    type: "line",
    data: {
      datasets: o.series.map((s, i) => {
        const c = colour(s.colourIndex ?? i);
        const points = s.points
          .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && (!logX || p.x > 0) && (!logY || p.y > 0))
          .map((p) => ({ x: p.x, y: p.y }))
          .sort((a, b) => a.x - b.x);
        return {
          label: s.label,
          data: points,
          borderColor: c,
          backgroundColor: c,
          borderDash: s.dash ? [...s.dash] : [],
          pointRadius: 2,
          tension: 0,
        };
      }),
    },
    options: {
      responsive: true,
      animation: false,
      parsing: false,
      scales: { x: axis(o.xTitle, logX), y: axis(o.yTitle, logY) },
      plugins: { title: { display: true, text: o.title } },
    },
  };
  return { title: o.title, config };
}

/** True when positive values span more than two decades (a log axis reads better). */
export function wideRange(values: readonly (number | null | undefined)[]): boolean {
  const pos = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v) && v > 0);
  if (pos.length < 2 || pos.length !== values.filter((v) => typeof v === "number" && Number.isFinite(v)).length)
    return false;
  return Math.max(...pos) / Math.min(...pos) > 100;
}
