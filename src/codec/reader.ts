/**
 * Bounds-checked little-endian cursor over a byte buffer, used by the strict decoder (compat-v1 §14.3).
 * Every read that would pass the end throws `Truncated{offset}` with the offset where the field starts.
 */
import { P } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import type { Digest } from "../hash/digest.js";
import { DecodeError } from "./errors.js";
import { FE_BYTES } from "./layout.js";

export class ByteReader {
  private readonly view: DataView;
  /** Buffer length in bytes. */
  readonly length: number;
  /** Offset of the next read, in bytes. */
  pos = 0;

  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.byteLength;
  }

  /** Bytes left after the cursor. */
  remaining(): number {
    return this.length - this.pos;
  }

  private need(size: number): number {
    const at = this.pos;
    if (size > this.length - at) {
      throw new DecodeError(
        "Truncated",
        `field at offset ${at} needs ${size} bytes, but the buffer ends at ${this.length}`,
        {
          offset: at,
          need: size,
          have: this.length,
        },
      );
    }
    this.pos = at + size;
    return at;
  }

  u8(): number {
    return this.view.getUint8(this.need(1));
  }

  u16(): number {
    return this.view.getUint16(this.need(2), true);
  }

  u32(): number {
    return this.view.getUint32(this.need(4), true);
  }

  /** One fe: a u32 that must be < p (`NonCanonicalFieldElement{offset}` otherwise). */
  fe(): number {
    const at = this.need(FE_BYTES);
    const v = this.view.getUint32(at, true);
    if (v >= P) {
      throw new DecodeError(
        "NonCanonicalFieldElement",
        `field element at offset ${at} is ${v}, not canonical (< p = ${P})`,
        { offset: at, value: v },
      );
    }
    return v;
  }

  /** One ef: 4 fe in basis order c0..c3 (errors as four `fe` reads: the offset of the failing one). */
  ef(): Ext {
    const at = this.pos;
    if (this.length - at >= 4 * FE_BYTES) {
      const v = this.view;
      const a0 = v.getUint32(at, true),
        a1 = v.getUint32(at + 4, true),
        a2 = v.getUint32(at + 8, true),
        a3 = v.getUint32(at + 12, true);
      if (a0 < P && a1 < P && a2 < P && a3 < P) {
        this.pos = at + 4 * FE_BYTES;
        return [a0, a1, a2, a3];
      }
    }
    const c0 = this.fe();
    const c1 = this.fe();
    const c2 = this.fe();
    const c3 = this.fe();
    return [c0, c1, c2, c3];
  }

  /** `size` raw bytes (a copy). */
  bytes(size: number): Uint8Array {
    const at = this.need(size);
    return new Uint8Array(this.view.buffer.slice(this.view.byteOffset + at, this.view.byteOffset + at + size));
  }

  /** 8 fe. */
  digest(): Digest {
    const d = new Uint32Array(8);
    for (let i = 0; i < 8; i++) d[i] = this.fe();
    return d;
  }
}
