/**
 * Tolerant readers for parsed results JSON: every value is untrusted (files may come from older
 * or newer benchmark versions, or be hand-edited). Readers return undefined instead of throwing;
 * `need*` variants throw a `ReportShapeError` naming the path, so that a section renderer can give
 * up and let the generic renderer show the file.
 */

/** Thrown by section renderers when a results file does not have the shape they know. */
export class ReportShapeError extends Error {
  constructor(
    readonly path: string,
    expected: string,
  ) {
    super(`${path}: expected ${expected}`);
    this.name = "ReportShapeError";
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A finite number, or undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** {median, min, max} summary (min/max optional), as written by the benchmarks. */
export interface Summary {
  readonly median: number;
  readonly min?: number;
  readonly max?: number;
}

/** A number is read as its own median; an object with a numeric `median` as a summary. */
export function summary(v: unknown): Summary | undefined {
  const n = num(v);
  if (n !== undefined) return { median: n };
  if (!isRecord(v)) return undefined;
  const median = num(v["median"]);
  if (median === undefined) return undefined;
  const min = num(v["min"]),
    max = num(v["max"]);
  return { median, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

/** The median of a number or summary, or undefined. */
export function median(v: unknown): number | undefined {
  return summary(v)?.median;
}

/** The value at a dotted path (`a.b.c`), or undefined. */
export function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split(".")) {
    if (!isRecord(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** The array at `path` whose elements are all objects; throws ReportShapeError otherwise. */
export function needRecords(data: unknown, path: string): Record<string, unknown>[] {
  const v = at(data, path);
  if (!Array.isArray(v) || v.length === 0 || !v.every(isRecord))
    throw new ReportShapeError(path, "a non-empty array of objects");
  return v as Record<string, unknown>[];
}

/** The object at `path`; throws ReportShapeError otherwise. */
export function needRecord(data: unknown, path: string): Record<string, unknown> {
  const v = at(data, path);
  if (!isRecord(v)) throw new ReportShapeError(path, "an object");
  return v;
}
