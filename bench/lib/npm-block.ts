/**
 * A block of npm inserts for the block benchmarks (v3, pcs): a name-keyed registry holding the
 * first `base` records of the bundled npm subset, and the next `size` records whose keys at the
 * depth are new, applied as one block.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { NameStore } from "../../src/registry/store/name-store.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { npmReposSource, npmReposSubsetPath } from "../../src/registry/import/dataset.js";
import { applyNameBlock, type AppliedBlock, type BlockUpdate } from "../../src/registry/name-block.js";
import { nameKey } from "../../src/registry/name-key.js";

/**
 * The first n records after the first `from` of the bundled npm subset whose keys at this depth
 * are new (none of the first `from` names nor an earlier insert has it), as block inserts.
 * @throws RangeError when the subset holds fewer such records.
 */
export function npmInserts(from: number, n: number, depth: number): BlockUpdate[] {
  const lines = gunzipSync(readFileSync(npmReposSubsetPath()))
    .toString("utf8")
    .split("\n")
    .filter((l) => l !== "");
  const seen = new Set<number>();
  for (const l of lines.slice(0, from)) seen.add(nameKey((JSON.parse(l) as { name: string }).name, depth));
  const out: BlockUpdate[] = [];
  for (let i = from; i < lines.length && out.length < n; i++) {
    const r = JSON.parse(lines[i]!) as { name: string; value: string | null };
    const k = nameKey(r.name, depth);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ op: "insert", name: r.name, value: r.value });
  }
  if (out.length < n)
    throw new RangeError(`the npm subset has fewer than ${n} records with new keys after the first ${from}`);
  return out;
}

/**
 * Runs `inside` on the applied block of `size` npm inserts into a fresh registry of the first
 * `base` npm records at `depth` (in a temporary folder, removed afterwards), with the store; returns
 * what `inside` returns.
 */
export async function withNpmBlock<T>(
  opts: { depth: number; base: number; size: number; label: string },
  inside: (applied: Omit<AppliedBlock, "entry">, store: NameStore) => T,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `ssgkr-bench-${opts.label}-`));
  try {
    const store = NameStore.openOrCreate(join(dir, "db"), { depth: opts.depth });
    try {
      // (at small depths some names share a key: the import skips all but the first)
      await importNames(store, () => npmReposSource(opts.base), { threads: 0, onError: "skip" });
      const updates = npmInserts(opts.base, opts.size, opts.depth);
      let out!: T;
      applyNameBlock(store, updates, (a) => {
        out = inside(a, store);
      });
      return out;
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
