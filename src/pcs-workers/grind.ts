/**
 * The share of a grinding search one thread runs (docs/pcs.md §4.6; the protocol in protocol.ts,
 * `GrindMessage`): the pool's calling thread and its workers take ranges of candidates in order
 * from one control block, so the least witness is found whatever the order ranges finish in.
 */
import { P } from "../field/koalabear.js";
import { BY_WORKERS, DONE, FAILED_SLOT, GRIND_BEST, NEXT } from "./protocol.js";

/**
 * Takes ranges of a grinding job from its control block until none below the best witness is
 * left: searches each with `search` (a hashing backend's `grindSearch`), lowers `GRIND_BEST` to
 * a witness it finds, counts every range it took in `DONE` and notifies. `byWorker` counts the
 * ranges in `BY_WORKERS` too.
 */
export function grindRanges(
  control: Int32Array,
  template: Uint32Array,
  lane: number,
  mask: number,
  chunk: number,
  search: (template: Uint32Array, lane: number, mask: number, start: number, count: number) => number,
  byWorker: boolean,
): void {
  for (;;) {
    if (Atomics.load(control, FAILED_SLOT) !== 0) return;
    const c = Atomics.add(control, NEXT, 1);
    const start = c * chunk;
    if (start >= P) return;
    if (start <= Atomics.load(control, GRIND_BEST)) {
      const found = search(template, lane, mask, start, Math.min(chunk, P - start));
      if (found >= 0) {
        const w = start + found;
        for (let best = Atomics.load(control, GRIND_BEST); w < best; best = Atomics.load(control, GRIND_BEST))
          if (Atomics.compareExchange(control, GRIND_BEST, best, w) === best) break;
      }
    }
    if (byWorker) Atomics.add(control, BY_WORKERS, 1);
    Atomics.add(control, DONE, 1);
    Atomics.notify(control, DONE);
    if (start > Atomics.load(control, GRIND_BEST)) return;
  }
}
