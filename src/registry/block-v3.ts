/**
 * Registry blocks in profile v3 (docs/registry.md "Block proofs", docs/profile-v3.md §9): what the
 * auditor derives from block.json alone — per update its key (the name's), its new leaf (the
 * name's record with the listed value; a Tombstone for delete) and the rule its old leaf obeys
 * (insert: Empty; restore: Tombstone; replace and delete: the name's record, any value) — and the
 * prover's side of the same rules.
 */
import { OpKind } from "../statement/types.js";
import { DEFAULT_LEAF_MAX_FIELDS, TOMBSTONE, type Leaf } from "../smt/leaf.js";
import type { V3OldLeafRule } from "../smt/v3/statement.js";
import { type PreparedV3, type V3BlockUpdate, prepareV3, v3ZkMaxCopyBits } from "../sync/v3/index.js";
import { DEFAULT_HIDING_WHIR_SET } from "../pcs/params.js";
import { MAX_BLOCK_UPDATES } from "./block-limits.js";
import { RegistryError } from "./errors.js";
import { KeccakBatch } from "../kernels/keccak-batch.js";
import { occupied } from "../smt/leaf.js";
import {
  isWellFormedString,
  checkNameBytes,
  nameIdentity,
  recordLeaf,
  textPayload,
  valuePayloadWith,
  type RecordValue,
} from "./mapping.js";
import type { BlockUpdate } from "./name-block.js";
import { keyOfDigest, nameKeyBig } from "./name-key.js";

/** The rule an update's old leaf obeys, by the update's op. */
export function oldLeafRule(u: BlockUpdate): V3OldLeafRule {
  if (u.op === "insert") return { rule: "empty" };
  if (u.op === "restore") return { rule: "tombstone" };
  return { rule: "record", identity: nameIdentity(u.name) };
}

/**
 * The v3 statement parts of one block update (key, new leaf, old-leaf rule).
 * @throws RegistryError `BAD_BLOCK` for an insert, replace or restore without a value, or a value
 *   that cannot be a record at this leaf bound (naming the update).
 */
export function v3BlockUpdate(u: BlockUpdate, index: number, depth: number, leafMaxFields: number): V3BlockUpdate {
  let newLeaf: Leaf;
  if (u.op === "delete") newLeaf = TOMBSTONE;
  else {
    if (u.value === undefined)
      throw new RegistryError("BAD_BLOCK", `update ${index + 1} (${u.op} ${JSON.stringify(u.name)}) gives no value`, {
        update: index,
      });
    try {
      newLeaf = recordLeaf(u.name, u.value as RecordValue, leafMaxFields);
    } catch (e) {
      throw new RegistryError(
        "BAD_BLOCK",
        `update ${index + 1} (${u.op} ${JSON.stringify(u.name)}): the listed value cannot be a record: ${(e as Error).message}`,
        { update: index },
      );
    }
  }
  return { key: nameKeyBig(u.name, depth), newLeaf, oldLeaf: oldLeafRule(u) };
}

const preparedCache = new Map<string, PreparedV3>();

/** The prepared v3 update circuit of a configuration (prepared once per process). */
export function preparedUpdateV3(depth: number, leafMaxFields: number): PreparedV3 {
  const k = `${depth}/${leafMaxFields}`;
  let p = preparedCache.get(k);
  if (!p) preparedCache.set(k, (p = prepareV3(OpKind.Update, { depth, leafMaxFields })));
  return p;
}

/**
 * The most updates one zero-knowledge (v3-zk) block proof holds at `depth` with the WHIR set
 * `set`: the layers' masks ride beside the committed halves, so about half of `maxBlockUpdates`
 * (1,024 at depth 48 with the default set). Prepares the v3 update circuit (once per process).
 * @throws RegistryError `BAD_BLOCK` when not even one update fits; PcsError `PCS_UNKNOWN_SET`.
 * @example maxZkBlockUpdates(48) // 1024
 */
export function maxZkBlockUpdates(
  depth: number,
  set: string = DEFAULT_HIDING_WHIR_SET,
  leafMaxFields?: number,
): number {
  const k = v3ZkMaxCopyBits(preparedUpdateV3(depth, leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS), set);
  if (k < 0) throw new RegistryError("BAD_BLOCK", `set ${set} hides no v3-zk block at depth ${depth}`, { depth });
  return Math.min(MAX_BLOCK_UPDATES, 2 ** k);
}

let keccak: KeccakBatch | undefined;

/**
 * `v3BlockUpdate` of every update, with the Keccak-256 of all names and text values in one batched
 * call (the WASM kernel of src/kernels/keccak-batch.ts): the same parts, in order. An update the
 * batch cannot take (a name or value that is refused) is redone by `v3BlockUpdate`, which throws
 * its error. Reference: `v3BlockUpdate` per update (test/registry/block-v3.test.ts).
 * @throws RegistryError `BAD_BLOCK` (naming the update), `BAD_NAME`.
 */
export function v3BlockUpdates(updates: readonly BlockUpdate[], depth: number, leafMaxFields: number): V3BlockUpdate[] {
  // every name's and text value's UTF-8 bytes in one buffer (at most 3 bytes per UTF-16 unit)
  const encoder = new TextEncoder();
  const textAt = new Int32Array(updates.length).fill(-1);
  let cap = 0;
  for (const u of updates) {
    cap += 3 * (typeof u?.name === "string" ? u.name.length : 0);
    if (typeof u?.value === "string") cap += 3 * u.value.length;
  }
  const bytes = new Uint8Array(cap);
  const offsets = new Uint32Array(2 * updates.length + 1);
  let count = 0;
  try {
    updates.forEach((u, i) => {
      const name = u.name;
      if (typeof name !== "string" || name.length === 0 || !isWellFormedString(name)) throw new TypeError("name");
      const start = offsets[count]!;
      const end = start + encoder.encodeInto(name, bytes.subarray(start)).written;
      checkNameBytes(bytes, start, end);
      offsets[++count] = end;
      if (typeof u.value === "string") {
        textAt[i] = count;
        offsets[count + 1] = end + encoder.encodeInto(u.value, bytes.subarray(end)).written;
        count++;
      }
    });
  } catch {
    // a refused name: each update on its own, which throws its error
    return updates.map((u, i) => v3BlockUpdate(u, i, depth, leafMaxFields));
  }
  const part = (j: number): Uint8Array => bytes.subarray(offsets[j]!, offsets[j + 1]!);
  keccak ??= new KeccakBatch();
  const digests = keccak.hashPacked(bytes, offsets, count);
  let nameAt = 0;
  return updates.map((u, i) => {
    const at = nameAt;
    nameAt += textAt[i]! >= 0 ? 2 : 1;
    const identity = digests.slice(32 * at, 32 * at + 32);
    const key = depth <= 48 ? BigInt(keyOfDigest(identity, depth)) : nameKeyBig(u.name, depth);
    if (u.op === "delete") return { key, newLeaf: TOMBSTONE, oldLeaf: { rule: "record", identity } };
    if (u.value === undefined) return v3BlockUpdate(u, i, depth, leafMaxFields);
    let payload: number[];
    try {
      // a text's UTF-8 bytes are those hashed above (reused, not encoded again)
      payload =
        typeof u.value === "string" && isWellFormedString(u.value)
          ? textPayload(part(textAt[i]!), leafMaxFields, () => digests.subarray(32 * (at + 1), 32 * (at + 2)))
          : valuePayloadWith(u.value as RecordValue, leafMaxFields, () => digests.slice(32 * (at + 1), 32 * (at + 2)));
    } catch {
      return v3BlockUpdate(u, i, depth, leafMaxFields);
    }
    const oldLeaf: V3OldLeafRule =
      u.op === "insert" ? { rule: "empty" } : u.op === "restore" ? { rule: "tombstone" } : { rule: "record", identity };
    return { key, newLeaf: occupied(payload, identity), oldLeaf };
  });
}
