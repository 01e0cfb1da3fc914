export { renderReport, chartJsSource, chartJsPath, type Report, type ReportOptions } from "./render.js";
export { loadResults, type ResultFile } from "./load.js";
export type { Section, ChartSpec, Table, Cell } from "./model.js";
