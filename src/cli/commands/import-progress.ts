/**
 * The import progress bar's arithmetic: how far the import is, measured against what it will read,
 * and the time left. The bar itself (cli-progress) is drawn by registry-import-run.ts.
 */

/** What the bar measures against: the records the import will read (a limit, or the dataset's count) and the source's bytes. */
export interface ProgressGoal {
  /** The records the import reads at most (`--limit N`, or the dataset's records); undefined when only the bytes are known. */
  readonly records: number | undefined;
  /** The source's bytes (the whole file, even when a limit stops the import earlier). */
  readonly bytes: number;
}

/**
 * How far the import is, 0…1: the larger of the records read against the records it will read and
 * the bytes read against the source's bytes. With `--limit` the records reach their goal first (the
 * file goes on beyond the limit); without one, or when the file ends before the limit, the bytes do.
 */
export function progressFraction(goal: ProgressGoal, done: { records: number; bytesRead: number }): number {
  const byRecords = goal.records !== undefined && goal.records > 0 ? done.records / goal.records : 0;
  const byBytes = goal.bytes > 0 && Number.isFinite(goal.bytes) ? done.bytesRead / goal.bytes : 0;
  return Math.min(1, Math.max(byRecords, byBytes, 0));
}

/** How long a measurement the time left needs before it is shown (ms of work and a share of the goal). */
const ETA_AFTER_MS = 1000;
const ETA_AFTER_FRACTION = 0.01;

/**
 * The time left as the bar shows it: "…" until there is something to extrapolate from (a second of
 * work and 1 % done), then whole seconds, or minutes and seconds — never cli-progress's "NFs" (its
 * infinite estimate while nothing has been counted yet).
 */
export function etaText(fraction: number, elapsedMs: number): string {
  if (fraction >= 1) return "0s";
  if (!(fraction >= ETA_AFTER_FRACTION) || !(elapsedMs >= ETA_AFTER_MS)) return "…";
  const left = Math.round(((elapsedMs / 1000) * (1 - fraction)) / fraction);
  return left < 60 ? `${left}s` : `${Math.floor(left / 60)}m${String(left % 60).padStart(2, "0")}s`;
}
