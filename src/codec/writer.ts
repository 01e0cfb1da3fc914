/**
 * Little-endian cursor that writes a message into a buffer of its exact size, the encoders'
 * counterpart of `ByteReader` (profiles v2 and v3: inner-proof-v2 §4, docs/profile-v3.md §6).
 * Field elements are checked canonical as they are written: a value outside [0, p) is handed to
 * the encoder's `fail` with the offset it was to be written at, and nothing is written.
 */
import { P } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";

/** The encoder's refusal of a non-canonical value (its error class, code `NonCanonicalFieldElement`). */
export type NonCanonicalFail = (
  code: "NonCanonicalFieldElement",
  message: string,
  details: { readonly offset: number },
) => never;

export class ByteWriter {
  /** The message (`size` bytes, zero until written). */
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  /** Offset of the next write, in bytes. */
  pos = 0;

  constructor(
    size: number,
    private readonly fail: NonCanonicalFail,
  ) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  u8(x: number): void {
    this.view.setUint8(this.pos, x);
    this.pos += 1;
  }

  u32(x: number): void {
    this.view.setUint32(this.pos, x, true);
    this.pos += 4;
  }

  u64(x: bigint): void {
    this.view.setBigUint64(this.pos, x, true);
    this.pos += 8;
  }

  /** One canonical field element as a u32. */
  fe(x: number): void {
    if (!Number.isInteger(x) || x < 0 || x >= P)
      this.fail("NonCanonicalFieldElement", `value ${x} at offset ${this.pos} is not a canonical field element`, {
        offset: this.pos,
      });
    this.u32(x);
  }

  /** An extension element: its 4 coordinates. */
  ext(e: Ext): void {
    this.fe(e[0]);
    this.fe(e[1]);
    this.fe(e[2]);
    this.fe(e[3]);
  }

  /** A digest: 8 field elements. */
  digest(d: ArrayLike<number>): void {
    for (let i = 0; i < 8; i++) this.fe(d[i]!);
  }

  /** Bytes as they are. */
  raw(b: Uint8Array): void {
    this.bytes.set(b, this.pos);
    this.pos += b.length;
  }

  /** The view over the whole message (for a header written at fixed offsets). */
  get dataView(): DataView {
    return this.view;
  }
}
