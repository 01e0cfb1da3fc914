/**
 * The conditions line of a results file, in the benchmarks' own format (bench/lib/conditions.ts),
 * from whatever the file's `conditions` object holds.
 */
import { isRecord, num, str } from "./json-read.js";

/** `# cpu, N cores, node v…, platform, M MiB, load L, date`, with the fields present; a note if none. */
export function conditionsText(v: unknown): string {
  if (!isRecord(v)) return "# conditions not recorded";
  const parts: string[] = [];
  const cpu = str(v["cpu"]);
  if (cpu) parts.push(cpu);
  const cores = num(v["cores"]);
  if (cores !== undefined) parts.push(`${cores} cores`);
  const node = str(v["node"]);
  if (node) parts.push(`node ${node}${str(v["v8"]) ? ` (V8 ${str(v["v8"])})` : ""}`);
  const platform = str(v["platform"]);
  if (platform) parts.push(platform);
  const mem = num(v["memoryMiB"]);
  if (mem !== undefined) parts.push(`${mem} MiB`);
  const load = num(v["load1"]);
  if (load !== undefined) parts.push(`load ${load}`);
  const date = str(v["date"]);
  if (date) parts.push(date);
  return parts.length > 0 ? `# ${parts.join(", ")}` : "# conditions not recorded";
}

/** Splits a long line at ", " into lines of at most `width` characters (for chart subtitles). */
export function wrapLine(line: string, width = 100): string[] {
  const out: string[] = [];
  let cur = "";
  for (const piece of line.split(", ")) {
    const next = cur === "" ? piece : `${cur}, ${piece}`;
    if (next.length > width && cur !== "") {
      out.push(`${cur},`);
      cur = piece;
    } else {
      cur = next;
    }
  }
  if (cur !== "") out.push(cur);
  return out;
}
