/**
 * Proof cache: read proofs keyed by (root, name, kind), least recently used out first, bounded in
 * bytes. A proof names the root it is for, so an entry stays correct after later writes; it is
 * served for `?root=` of an earlier root while it is cached.
 */
import { formatRoot } from "../counterparty/claim.js";

export interface CachedProof {
  /** The JSON body (statement, request, proof base64, …). */
  readonly body: Record<string, unknown>;
  /** `body` serialized. */
  readonly json: string;
  /** What a cached read sends: `json` with `"cached": true`, as UTF-8 bytes (encoded once). */
  readonly hit: Buffer;
  /** The proof bytes. */
  readonly bytes: Uint8Array;
  /** Bytes this entry holds (approximately: JSON text + proof). */
  readonly size: number;
}

export class ProofCache {
  private readonly map = new Map<string, CachedProof>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  /** @param maxBytes budget (default 128 MiB); 0 disables the cache. */
  constructor(readonly maxBytes = 128 * 1024 * 1024) {}

  static key(root: ArrayLike<number> | string, name: string, kind: string): string {
    return keyOf(formatRoot(root), name, kind);
  }

  /**
   * The entry of (root, name) under the first of `kinds` that has one, counted as one hit or one
   * miss. A root decides a name's state, so at most one of a statement's kinds (membership or
   * non-membership) is ever cached for a root and a name: a read need not look the name up first.
   */
  find(root: ArrayLike<number> | string, name: string, kinds: readonly string[]): CachedProof | undefined {
    const r = typeof root === "string" ? root : formatRoot(root);
    for (const kind of kinds) {
      const key = keyOf(r, name, kind);
      if (this.map.has(key)) return this.get(key);
    }
    this.misses++;
    return undefined;
  }

  get(key: string): CachedProof | undefined {
    const e = this.map.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, e);
    return e;
  }

  set(key: string, e: CachedProof): void {
    if (e.size > this.maxBytes) return;
    const old = this.map.get(key);
    if (old) {
      this.bytes -= old.size;
      this.map.delete(key);
    }
    this.map.set(key, e);
    this.bytes += e.size;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= v.size;
    }
  }

  get size(): number {
    return this.map.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }
}

/** The key of (a root as 64 hex characters, a name, a kind). */
function keyOf(root: string, name: string, kind: string): string {
  return `${root}|${kind}|${name}`;
}
