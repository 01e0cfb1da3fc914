/**
 * Long overwrite sponges over word streams produced window by window into WASM memory: one sponge
 * with `absorbSource`, several independent ones side by side with `absorbSources` (two lanes
 * interleaved, or four SIMD lanes). Memory use is bounded by the window size, whatever the
 * stream length.
 *
 * Block semantics (compat-v1 §4 sponge, §5 duplex with observes only): each block of 8 words (the
 * last possibly shorter) overwrites the prefix of the rate lanes, then the state is permuted.
 * Every word is checked to be canonical before it is absorbed.
 */
import { P } from "../field/koalabear.js";
import { KernelError } from "./errors.js";
import type { Region } from "./memory.js";
import type { HashKernels } from "./hash-kernels.js";
import { JOB_LANES, JOB_STATES, SPONGE_JOB_WORDS } from "./abi.js";

/** A stream of words written into WASM memory piece by piece. */
export interface WordSource {
  /** Total number of words. */
  readonly length: number;
  /**
   * Writes the next words (at most `max`) at byte pointer `dst` of `hk`'s memory and returns how
   * many it wrote. Must write at least one word when `max` ≥ 8 and words remain. May allocate in
   * `hk.heap` (regions already handed out never move).
   */
  fill(hk: HashKernels, dst: number, max: number): number;
}

/** Words per lane and window (a multiple of 8). */
export const WINDOW_WORDS = 1 << 15;
/** Extra room after a window: a fill may stop up to 7 words short of the window. */
const WINDOW_SLACK = 16;

/**
 * Thrown as KernelError `NON_CANONICAL` with details `{ source, index, value }`: source number,
 * word index inside that source, the offending value.
 */
function nonCanonical(source: number, index: number, value: number): KernelError {
  return new KernelError(
    "NON_CANONICAL",
    `word ${index} of sponge input ${source} is ${value}, not a canonical field element (must be < p = ${P})`,
    { source, index, value },
  );
}

/** One lane's stream buffer: words [0, have) of the window region are ready to absorb. */
class LaneBuffer {
  readonly region: Region;
  have = 0;
  /** Words of the source already written into the buffer (absorbed or pending). */
  produced = 0;

  constructor(hk: HashKernels) {
    this.region = hk.heap.alloc(WINDOW_WORDS + WINDOW_SLACK);
  }

  /** Tops the buffer up to at least one window (or to the end of the source); checks new words. */
  top(hk: HashKernels, source: WordSource, sourceIndex: number): void {
    const cap = WINDOW_WORDS + WINDOW_SLACK;
    const from = this.have;
    while (this.have < WINDOW_WORDS && this.produced < source.length) {
      const n = source.fill(hk, this.region.ptr + 4 * this.have, cap - this.have);
      if (!Number.isInteger(n) || n <= 0 || n > cap - this.have || this.produced + n > source.length) {
        throw new KernelError(
          "BAD_LENGTH",
          `word source ${sourceIndex} wrote ${n} words (room ${cap - this.have}, ${source.length - this.produced} left)`,
        );
      }
      this.have += n;
      this.produced += n;
    }
    const added = this.have - from;
    if (added > 0) {
      const bad = hk.raw.first_noncanonical(this.region.ptr + 4 * from, added);
      if (bad >= 0) {
        const index = this.produced - added + bad;
        throw nonCanonical(sourceIndex, index, this.region.view()[from + bad]!);
      }
    }
  }

  /** Drops the first `n` words, moving the rest to the front. */
  consume(n: number): void {
    const v = this.region.view();
    v.copyWithin(0, n, this.have);
    this.have -= n;
  }
}

/**
 * Absorbs a whole source into one state (16 canonical words, default zeros) and returns the final
 * state.
 * @throws KernelError `NON_CANONICAL` (details `{ source: 0, index, value }`), `BAD_LENGTH` for a
 *   source that misreports its writes.
 */
export function absorbSource(hk: HashKernels, source: WordSource, initial?: ArrayLike<number>): Uint32Array {
  const state = hk.heap.alloc(16);
  const buf = new LaneBuffer(hk);
  try {
    const sv = state.view();
    sv.fill(0);
    if (initial) sv.set(initial);
    while (buf.produced < source.length || buf.have > 0) {
      buf.top(hk, source, 0);
      const done = buf.produced === source.length;
      const n = done ? buf.have : buf.have & ~7;
      hk.raw.poseidon2_sponge(state.ptr, buf.region.ptr, n, hk.constantsPtr);
      buf.consume(n);
    }
    return state.view().slice();
  } finally {
    hk.heap.release(buf.region);
    hk.heap.release(state);
  }
}

/** Lane assignment: longest source first, each to the lane with the least work so far. */
function schedule(lengths: readonly number[], lanes: number): number[][] {
  const queues: number[][] = Array.from({ length: lanes }, () => []);
  const load = new Array<number>(lanes).fill(0);
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  for (const i of order) {
    let best = 0;
    for (let l = 1; l < lanes; l++) if (load[l]! < load[best]!) best = l;
    queues[best]!.push(i);
    load[best]! += Math.ceil(lengths[i]! / 8);
  }
  return queues;
}

/**
 * Absorbs every source into its own sponge from the zero state, running `lanes` sponges at once
 * (2: two states interleaved; 4: the four SIMD lanes). Sources are assigned to lanes longest first;
 * a lane that finishes a source starts its next one at the following window. A single source runs
 * on the single-state sponge. Returns the final states (16 canonical words each) in source order.
 * @throws KernelError `NON_CANONICAL` (details `{ source, index, value }`), `BAD_LENGTH`,
 *   `BAD_OPTIONS` for a lane count other than 2 or 4.
 */
export function absorbSources(hk: HashKernels, sources: readonly WordSource[], lanes: 2 | 4 = 2): Uint32Array[] {
  if (lanes !== 2 && lanes !== 4) throw new KernelError("BAD_OPTIONS", `lanes must be 2 or 4, got ${String(lanes)}`);
  if (sources.length === 1) return [absorbSource(hk, sources[0]!)];
  const results: Uint32Array[] = sources.map(() => new Uint32Array(16));
  const queues = schedule(
    sources.map((s) => s.length),
    lanes,
  ).map((q) => q.filter((i) => sources[i]!.length > 0));
  const job = hk.heap.alloc(SPONGE_JOB_WORDS);
  const buffers: LaneBuffer[] = [];
  try {
    for (let l = 0; l < lanes; l++) buffers.push(new LaneBuffer(hk));
    const current = new Array<number>(lanes).fill(-1);
    const kernel = lanes === 2 ? hk.raw.poseidon2_sponge_x2 : hk.raw.poseidon2_sponge_x4;
    for (;;) {
      let begin = 0;
      let active = 0;
      const jv = job.view();
      for (let l = 0; l < lanes; l++) {
        const buf = buffers[l]!;
        if (current[l]! < 0 && queues[l]!.length > 0) {
          current[l] = queues[l]!.shift()!;
          buf.have = 0;
          buf.produced = 0;
          jv.fill(0, JOB_STATES + 16 * l, JOB_STATES + 16 * l + 16);
          begin |= 1 << l;
        }
        const s = current[l]!;
        let n = 0;
        if (s >= 0) {
          buf.top(hk, sources[s]!, s);
          const done = buf.produced === sources[s]!.length && buf.have <= WINDOW_WORDS;
          n = done ? buf.have : WINDOW_WORDS;
          active++;
        }
        const view = job.view();
        view[JOB_LANES + 2 * l] = buf.region.ptr;
        view[JOB_LANES + 2 * l + 1] = n;
      }
      if (active === 0) break;
      kernel(job.ptr, begin, hk.constantsPtr);
      const view = job.view();
      for (let l = 0; l < lanes; l++) {
        const s = current[l]!;
        if (s < 0) continue;
        const n = view[JOB_LANES + 2 * l + 1]!;
        const buf = buffers[l]!;
        buf.consume(n);
        if (buf.have === 0 && buf.produced === sources[s]!.length) {
          results[s]!.set(view.subarray(JOB_STATES + 16 * l, JOB_STATES + 16 * l + 16));
          current[l] = -1;
        }
      }
    }
    return results;
  } finally {
    for (const b of buffers) hk.heap.release(b.region);
    hk.heap.release(job);
  }
}
