/**
 * Large word arrays (`Uint32Array`) recycled from one proof to the next on this thread: the K
 * copies' canonical layer vectors when they are copied out of kernel memory (`evaluateCopiesWasm`,
 * given back by `ResidentCopies.recycle()`),
 * the commitment's plain copies (`whirCommitOn`, given back by `releaseWhirState`) and the hiding
 * commitment's tables (`whirCommitHidingOn`, given back by `releaseWhirHidingState`).
 *
 * A block's layer vectors are hundreds of megabytes (1,024 d48 updates: 30 vectors of 16 MiB), its
 * hiding commitment's tables as much again. A fresh array costs a page fault on the first write to
 * each of its 4 KiB pages, and on a virtual machine a fault costs microseconds: a third of a v2
 * block proof's CPU time went to faulting in fresh layer vectors (docs/benchmarks.md, "Fresh
 * memory"). A prover that proves again takes the arrays the previous proof gave back, whose pages
 * are already mapped.
 *
 * Only the owner that took an array gives it back, once, when nothing reads it any more; the free
 * list holds at most `RECYCLED_WORDS_MAX` words and is dropped after `RECYCLE_IDLE_MS` without a
 * proof, so an idle process does not keep the memory.
 */

/** Most words the free list keeps (1 GiB). */
export const RECYCLED_WORDS_MAX = 1 << 28;

/** The free list is dropped this long (ms) after the last vectors were given back. */
export const RECYCLE_IDLE_MS = 5_000;

const free = new Map<number, Uint32Array[]>();
/** Vectors on the free list (a vector given back twice is listed once). */
const listed = new WeakSet<Uint32Array>();
let freeWords = 0;
let idle: ReturnType<typeof setTimeout> | null = null;

/** An array of `words` words: one from the free list (any contents) or a new zeroed one. */
export function takeWords(words: number): Uint32Array {
  const v = free.get(words)?.pop();
  if (v === undefined) return new Uint32Array(words);
  listed.delete(v);
  freeWords -= words;
  return v;
}

/** A copy of `x` in an array from `takeWords` (every word written). */
export function takeCopyOf(x: Uint32Array): Uint32Array {
  const out = takeWords(x.length);
  out.set(x);
  return out;
}

/**
 * Puts arrays that `takeWords` handed out, and that nobody reads or writes any more, on the free
 * list. Views into a larger buffer, arrays already listed and arrays beyond the cap are left to
 * the garbage collector.
 */
export function giveBackWords(vectors: readonly Uint32Array[]): void {
  for (const v of vectors) {
    if (listed.has(v) || v.byteOffset !== 0 || v.byteLength !== v.buffer.byteLength) continue;
    if (freeWords + v.length > RECYCLED_WORDS_MAX) continue;
    let list = free.get(v.length);
    if (list === undefined) free.set(v.length, (list = []));
    list.push(v);
    listed.add(v);
    freeWords += v.length;
  }
  if (idle !== null) clearTimeout(idle);
  idle = freeWords > 0 ? setTimeout(dropRecycledWords, RECYCLE_IDLE_MS) : null;
  // Node: the timer does not keep the process alive (browsers have no unref).
  (idle as { unref?: () => void } | null)?.unref?.();
}

/** Empties the free list (its arrays go to the garbage collector). */
export function dropRecycledWords(): void {
  if (idle !== null) clearTimeout(idle);
  idle = null;
  for (const list of free.values()) for (const v of list) listed.delete(v);
  free.clear();
  freeWords = 0;
}

/** Words on the free list now. */
export function recycledWords(): number {
  return freeWords;
}
