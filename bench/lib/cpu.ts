/**
 * Process CPU time of one call (`process.cpuUsage`: user + system, every thread of the process)
 * and the median/min/max of a list of such times.
 */
import { fmt } from "./output.js";

/** Median, least and largest of a list of times (ms). */
export interface Stat {
  median: number;
  min: number;
  max: number;
}

/** The median (mean of the middle two for an even count), min and max of `xs` (not empty). */
export function stat(xs: readonly number[]): Stat {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return { median: s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2, min: s[0]!, max: s[s.length - 1]! };
}

/** Runs `fn` once: its result and the process CPU ms it took. */
export function cpuTimed<T>(fn: () => T): [T, number] {
  const c0 = process.cpuUsage();
  const out = fn();
  const c = process.cpuUsage(c0);
  return [out, (c.user + c.system) / 1000];
}

/** `median (min–max)` with one decimal. */
export function showStat(s: Stat): string {
  return `${fmt(s.median, 1)} (${fmt(s.min, 1)}–${fmt(s.max, 1)})`;
}
