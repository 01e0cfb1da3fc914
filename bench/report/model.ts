/**
 * What the benchmark report is made of: one section per result file, each with charts (Chart.js
 * configurations, serialised into the page as JSON) and tables.
 */

/** A Chart.js configuration object ({ type, data, options }); plain JSON, no functions. */
export type ChartConfig = Record<string, unknown>;

/** One chart of a section. */
export interface ChartSpec {
  /** Main title (drawn by Chart.js; the section's conditions line is the subtitle). */
  readonly title: string;
  readonly config: ChartConfig;
}

/** A table cell: text, a number (formatted when rendered) or empty. */
export type Cell = string | number | boolean | null | undefined;

export interface Table {
  readonly caption: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
}

/** The rendered form of one results file. */
export interface Section {
  /** Benchmark name (the file name without .json). */
  readonly name: string;
  /** File name inside the results folder. */
  readonly file: string;
  readonly title: string;
  /** The conditions line the benchmark ran under (`# cpu, cores, node, …, load, date`). */
  readonly conditions: string;
  /** Short remarks shown under the title (e.g. "shape not recognised, shown as tables"). */
  readonly notes: readonly string[];
  readonly charts: readonly ChartSpec[];
  readonly tables: readonly Table[];
}

/** Builds the section of a parsed results file; throws if the data does not have the expected shape. */
export type SectionRenderer = (
  data: Record<string, unknown>,
  context: { readonly name: string; readonly file: string; readonly conditions: string },
) => Section;
