/**
 * Vectors of extension elements in plane layout.
 *
 * Layout: one `Uint32Array` of 4·n words holding four coefficient planes back to back:
 * words [0, n) are the c0 of every element, [n, 2n) the c1, [2n, 3n) the c2, [3n, 4n) the c3.
 * Element i is (data[i], data[n + i], data[2n + i], data[3n + i]). The same layout is used
 * inside WASM memory, so kernels can treat each plane as a base-field vector.
 */
import type { Ext } from "./extension.js";
import { FieldError } from "./errors.js";

/**
 * A vector of extension elements in plane layout: four `Uint32Array` planes (coefficient k of every element in plane k), canonical values in [0, p); what the sumcheck and GKR provers fold (compat-v1 §3.2).
 * @example
 *   const v = ExtVector.fromElements([EXT_ONE, EXT_ZERO]); v.set(1, EXT_ONE);
 */
export class ExtVector {
  /** Number of extension elements. */
  readonly length: number;
  /** Backing storage, 4·length words in plane layout. */
  readonly data: Uint32Array;

  constructor(length: number, data?: Uint32Array) {
    if (!Number.isInteger(length) || length < 0)
      throw new FieldError("BAD_LENGTH", `ExtVector length must be a non-negative integer, got ${length}`);
    if (data && data.length !== 4 * length) {
      throw new FieldError(
        "BAD_LENGTH",
        `ExtVector of ${length} elements needs ${4 * length} words, got ${data.length}`,
      );
    }
    this.length = length;
    this.data = data ?? new Uint32Array(4 * length);
  }

  /** Base vector embedded: c0 plane = values, other planes zero. */
  static fromBase(values: ArrayLike<number>): ExtVector {
    const v = new ExtVector(values.length);
    for (let i = 0; i < values.length; i++) v.data[i] = values[i]!;
    return v;
  }

  static fromElements(elements: readonly Ext[]): ExtVector {
    const v = new ExtVector(elements.length);
    for (let i = 0; i < elements.length; i++) v.set(i, elements[i]!);
    return v;
  }

  /** Plane k (0..3) as a view. */
  plane(k: number): Uint32Array {
    return this.data.subarray(k * this.length, (k + 1) * this.length);
  }

  get(i: number): Ext {
    const n = this.length;
    const d = this.data;
    return [d[i]!, d[n + i]!, d[2 * n + i]!, d[3 * n + i]!];
  }

  set(i: number, e: Ext): void {
    const n = this.length;
    const d = this.data;
    d[i] = e[0];
    d[n + i] = e[1];
    d[2 * n + i] = e[2];
    d[3 * n + i] = e[3];
  }

  toElements(): Ext[] {
    const out: Ext[] = [];
    for (let i = 0; i < this.length; i++) out.push(this.get(i));
    return out;
  }
}
