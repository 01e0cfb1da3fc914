/**
 * `npm ci` installs without EBADENGINE: every package of package-lock.json accepts the Node.js
 * running the suite (npm's own engine check), and that Node is one package.json's `engines` allows.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./consumer.js";

type Version = readonly [number, number, number];

const cmp = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies one comparator (`>=18`, `^20.17.0`, `20`, `10.*`, `<=0.7.0`, `*`). */
function satisfiesComparator(version: Version, comparator: string): boolean {
  const m = /^(>=|<=|>|<|=|\^|~)?v?(\*|x|\d+)?(?:\.(\*|x|\d+))?(?:\.(\*|x|\d+))?$/.exec(comparator);
  if (!m) throw new RangeError(`unsupported engines comparator ${JSON.stringify(comparator)}`);
  const op = m[1] ?? "=";
  const parts = [m[2], m[3], m[4]].map((p) => (p === undefined || p === "*" || p === "x" ? undefined : Number(p)));
  const given = parts.findIndex((p) => p === undefined);
  const known = given < 0 ? 3 : given; // how many leading parts are numbers
  if (known === 0) return op === "=" || op === ">=" || op === "<=" || op === "^" || op === "~";
  const low: Version = [parts[0] ?? 0, known > 1 ? parts[1]! : 0, known > 2 ? parts[2]! : 0];
  // The exclusive upper bound of the partial version (20 → 21.0.0, 1.2 → 1.3.0).
  const next: Version =
    known === 1 ? [low[0] + 1, 0, 0] : known === 2 ? [low[0], low[1] + 1, 0] : [low[0], low[1], low[2] + 1];
  switch (op) {
    case ">=":
      return cmp(version, low) >= 0;
    case ">":
      return cmp(version, next) >= 0;
    case "<":
      return cmp(version, low) < 0;
    case "<=":
      return cmp(version, next) < 0;
    case "=":
      return cmp(version, low) >= 0 && cmp(version, next) < 0;
    case "~":
      return cmp(version, low) >= 0 && cmp(version, known === 1 ? next : [low[0], low[1] + 1, 0]) < 0;
    default: {
      // ^: up to the next change of the first non-zero part given
      const upper: Version =
        known === 1 || low[0] > 0
          ? [low[0] + 1, 0, 0]
          : known === 2 || low[1] > 0
            ? [0, low[1] + 1, 0]
            : [0, 0, low[2] + 1];
      return cmp(version, low) >= 0 && cmp(version, upper) < 0;
    }
  }
}

/** Whether `version` (`v20.20.2`) satisfies an engines range (`||` of space-separated comparators). */
export function satisfiesRange(version: string, range: string): boolean {
  const v = version.replace(/^v/, "").split(".").map(Number) as unknown as Version;
  return range.split("||").some((set) => {
    const comparators = set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .filter((c) => c !== "");
    return comparators.every((c) => satisfiesComparator(v, c));
  });
}

test("the engines range checker reads the forms package-lock.json holds", () => {
  const yes: [string, string][] = [
    ["v20.20.2", ">=18"],
    ["20.20.2", "^20.17.0 || >=22.9.0"],
    ["20.20.2", "20 || >=22"],
    ["20.20.2", ">= 20.19.0"],
    ["20.20.2", "10.* || >= 12.*"],
    ["20.20.2", ">= 10.x"],
    ["20.20.2", "*"],
    ["20.20.2", ">=16 || 14 >=14.17"],
    ["0.7.0", ">=0.6.11 <=0.7.0 || >=0.7.3"],
    ["0.9.0", "^0"],
    ["1.9.9", "~1"],
  ];
  const no: [string, string][] = [
    ["20.20.2", ">=22"],
    ["20.16.0", "^20.17.0 || >=22.9.0"],
    ["21.0.0", "20 || >=22"],
    ["20.20.2", ">=23.5.0 || ^22.13.0"],
    ["0.7.1", ">=0.6.11 <=0.7.0 || >=0.7.3"],
    ["14.16.0", ">=16 || 14 >=14.17"],
    ["0.3.0", "^0.2.3"],
    ["0.0.4", "^0.0.3"],
    ["1.3.0", "~1.2"],
  ];
  for (const [v, r] of yes) assert.ok(satisfiesRange(v, r), `${v} satisfies ${r}`);
  for (const [v, r] of no) assert.ok(!satisfiesRange(v, r), `${v} does not satisfy ${r}`);
});

test("every package of package-lock.json accepts this Node.js (npm ci gives no EBADENGINE), which package.json's engines allows", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } };
  assert.ok(
    satisfiesRange(process.version, pkg.engines.node),
    `${process.version} is allowed by engines.node ${pkg.engines.node}`,
  );
  const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };
  let checked = 0;
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (path === "" || node === undefined) continue;
    checked++;
    if (!satisfiesRange(process.version, node))
      refused.push(`${path.replace(/^.*node_modules\//, "")}@${entry.version} wants node ${node}`);
  }
  assert.ok(checked > 100, `engines fields were found (${checked})`);
  assert.deepEqual(
    refused,
    [],
    `packages that refuse ${process.version} (npm warns EBADENGINE for each): pin or override them in package.json`,
  );
});
