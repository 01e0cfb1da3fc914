/**
 * The check of a consistency chain (docs/registry.md "Consistency between checkpoints"): the
 * registry went from the root of size A to the root of size B by the listed blocks, one per batch
 * A+1..B (a batch of more updates than one block proof holds: one per part, parts 0..n−1 in a row, each from the
 * root the part before left), each a profile v3 block proof checked from its roots and its
 * block.json alone (`verifyRegistryBlock`). Checks, in order (the first failure decides, with a
 * stable code):
 *
 * | Check | Code |
 * |---|---|
 * | sizes: A ≤ B, both integers ≥ 0; the roots readable | `CHAIN_SIZES` |
 * | each link is `{batch, from_root, to_root}` with a block and proof, or `unchanged: true`; a part also has `part` and `parts` (0 ≤ part < parts, parts ≥ 2) | `CHAIN_MALFORMED` |
 * | links go batch by batch from A+1, the parts of a batch in order (a later one that the chain lists nowhere: a block is missing; one listed later, an earlier or a repeated one: out of order) | `CHAIN_GAP`, `CHAIN_ORDER` |
 * | the first link starts at A's root; each starts at the root the one before left | `CHAIN_START`, `CHAIN_ROOT` |
 * | block.json's batch, part, parts and roots are the link's; an `unchanged` link keeps its root | `CHAIN_MALFORMED`, `CHAIN_UNCHANGED` |
 * | each block proof (`verifyRegistryBlock`, profile v3) | its codes (`BLOCK_JSON`, `FROM_ROOT_MISMATCH`, `GKR_…`, …) |
 * | the links end at batch B (its last part) with B's root | `CHAIN_END` |
 *
 * Runs in Node and in the browser (no Node module). Never throws on malformed input.
 */
import type { Digest } from "../../hash/digest.js";
import { formatRoot, parseRoot } from "../root.js";
import { bytesOfBase64 } from "../checkpoint/note.js";
import { verifyRegistryBlock, type BlockRejectCode, type VerifiedV3Block } from "../verify-block.js";

/** The chain check's own rejection codes (the table above). */
export const CONSISTENCY_REJECT_CODES = [
  "CHAIN_SIZES",
  "CHAIN_MALFORMED",
  "CHAIN_GAP",
  "CHAIN_ORDER",
  "CHAIN_START",
  "CHAIN_ROOT",
  "CHAIN_UNCHANGED",
  "CHAIN_END",
] as const;

/** The monitor's rejection codes (`monitorStep`, monitor-step.ts): two signed checkpoints that show two histories. */
export const MONITOR_REJECT_CODES = ["CHECKPOINT_FORK", "CHECKPOINT_ROLLBACK"] as const;

/** A rejection code of `monitorStep`. */
export type MonitorRejectCode = (typeof MONITOR_REJECT_CODES)[number];

/** A rejection code of `verifyConsistency`: its own and a block's (`BlockRejectCode`). */
export type ConsistencyRejectCode = (typeof CONSISTENCY_REJECT_CODES)[number] | BlockRejectCode;

/** One end of a chain: a checkpoint's size (batch) and root (64 hex characters or 8 elements). */
export interface ChainEnd {
  readonly size: number;
  readonly root: string | ArrayLike<number>;
}

/**
 * One link of a chain, as `GET /v1/consistency` serves it: the batch, its roots and either its
 * block (block.json as text or parsed, block.bin as base64 or bytes) or `unchanged: true` (the
 * batch left the root as it was); a part of a batch proved in parts also has `part` and `parts`.
 */
export interface ConsistencyLink {
  readonly batch: number;
  /** A batch proved in parts: this link's part (0-based); absent for a batch of one block. */
  readonly part?: number;
  /** A batch proved in parts: its parts (≥ 2). */
  readonly parts?: number;
  readonly from_root: string;
  readonly to_root: string;
  readonly unchanged?: boolean;
  readonly block?: string | object;
  readonly proof?: string | Uint8Array;
}

/** Outcome of `verifyConsistency`. */
export type ConsistencyVerdict =
  | { readonly ok: true; readonly blocks: number; readonly unchanged: number }
  | { readonly ok: false; readonly code: ConsistencyRejectCode; readonly reason: string; readonly batch?: number };

function reject(code: ConsistencyRejectCode, reason: string, batch?: number): ConsistencyVerdict {
  return batch === undefined ? { ok: false, code, reason } : { ok: false, code, reason, batch };
}

function rootOf(r: unknown): Digest | undefined {
  try {
    return parseRoot(r);
  } catch {
    return undefined;
  }
}

/** Options of `verifyConsistency`. */
export interface ConsistencyOptions {
  /**
   * Called for each link whose block proof verified (`link`: its index in the chain), with what
   * the proof was checked against (`verifyRegistryBlock`'s `onVerified`). The chain as a whole
   * holds only when the verdict is ok: a caller keeps these for nothing else.
   */
  readonly onBlock?: (link: number, block: VerifiedV3Block) => void;
}

/**
 * Checks that a chain of links takes the registry from checkpoint `from` to checkpoint `to`
 * (see the table above). Give the roots from checkpoints whose signatures you checked
 * (`verifyCheckpoint`): the chain then shows the two belong to one history.
 * @returns `{ ok: true, blocks, unchanged }` or `{ ok: false, code, reason, batch? }`.
 * @example
 *   const page = await (await fetch(`${url}/v1/consistency?from=3&to=7`)).json();
 *   verifyConsistency({ from: { size: 3, root: a.root }, to: { size: 7, root: b.root } }, page.links); // { ok: true, … }
 */
export function verifyConsistency(
  ends: { readonly from: ChainEnd; readonly to: ChainEnd },
  chain: readonly ConsistencyLink[],
  options: ConsistencyOptions = {},
): ConsistencyVerdict {
  const { from, to } = ends;
  const onBlock = options.onBlock;
  const fromRoot = rootOf(from?.root),
    toRoot = rootOf(to?.root);
  const size = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  if (!size(from?.size) || !size(to?.size) || fromRoot === undefined || toRoot === undefined)
    return reject("CHAIN_SIZES", "the ends of a chain are a size (a batch number ≥ 0) and a root each");
  if (from.size > to.size)
    return reject("CHAIN_SIZES", `the chain goes forward: from size ${from.size} is after to size ${to.size}`);
  if (!Array.isArray(chain)) return reject("CHAIN_MALFORMED", "the chain is an array of links");
  let root = formatRoot(fromRoot);
  let blocks = 0,
    unchanged = 0;
  /** Batches the links have completed (every part), and the batch proved in parts under way. */
  let done = 0;
  let open: { batch: number; part: number; parts: number } | undefined;
  for (let i = 0; i < chain.length; i++) {
    const l = chain[i] as Partial<ConsistencyLink> | null;
    const want = open?.batch ?? from.size + 1 + done;
    if (
      l === null ||
      typeof l !== "object" ||
      !size(l.batch) ||
      rootOf(l.from_root) === undefined ||
      rootOf(l.to_root) === undefined
    )
      return reject("CHAIN_MALFORMED", `link ${i + 1} is not {batch, from_root, to_root, …}`);
    const batch = l.batch!;
    const parted = l.part !== undefined || l.parts !== undefined;
    if (parted && !(size(l.parts) && l.parts! >= 2 && size(l.part) && l.part! < l.parts!))
      return reject(
        "CHAIN_MALFORMED",
        `link ${i + 1}: a part of a batch has part and parts, 0 ≤ part < parts and parts ≥ 2`,
        batch,
      );
    const part = parted ? l.part! : 0;
    const isLater = (b: number, p: number) =>
      chain.slice(i + 1).some((x) => {
        const y = x as Partial<ConsistencyLink> | null;
        return y?.batch === b && (y.part ?? 0) === p;
      });
    if (open !== undefined && (batch !== open.batch || part !== open.part || l.parts !== open.parts)) {
      const what = `batch ${open.batch} part ${open.part} of ${open.parts}`;
      return batch === open.batch || isLater(open.batch, open.part)
        ? reject("CHAIN_ORDER", `link ${i + 1} is not ${what} (the parts are out of order or repeated)`, open.batch)
        : reject("CHAIN_GAP", `link ${i + 1}: ${what} is missing from the chain`, open.batch);
    }
    if (batch > want) {
      return isLater(want, 0)
        ? reject(
            "CHAIN_ORDER",
            `link ${i + 1} is batch ${batch}, before batch ${want} (the links are out of order)`,
            batch,
          )
        : reject("CHAIN_GAP", `link ${i + 1} is batch ${batch}, batch ${want} is missing from the chain`, want);
    }
    if (batch < want)
      return reject(
        "CHAIN_ORDER",
        `link ${i + 1} is batch ${batch}, batch ${want} was expected (the links are out of order or repeated)`,
        batch,
      );
    if (open === undefined && part !== 0)
      return isLater(batch, 0)
        ? reject("CHAIN_ORDER", `link ${i + 1} is part ${part} of batch ${batch}, before its part 0`, batch)
        : reject("CHAIN_GAP", `link ${i + 1} is part ${part} of batch ${batch}, its part 0 is missing`, batch);
    if (batch > to.size)
      return reject("CHAIN_END", `the chain goes past size ${to.size} (link ${i + 1} is batch ${batch})`, batch);
    const lf = formatRoot(rootOf(l.from_root)!),
      lt = formatRoot(rootOf(l.to_root)!);
    if (lf !== root)
      return i === 0
        ? reject(
            "CHAIN_START",
            `the first link starts at root ${lf}, not at the root ${root} of size ${from.size}`,
            batch,
          )
        : reject(
            "CHAIN_ROOT",
            part > 0
              ? `batch ${batch} part ${part} starts at root ${lf}, not at the root ${root} its part ${part - 1} left`
              : `batch ${batch} starts at root ${lf}, not at the root ${root} batch ${batch - 1} left`,
            batch,
          );
    if (l.unchanged === true) {
      if (parted)
        return reject("CHAIN_MALFORMED", `batch ${batch}: a part of a batch is a block, not unchanged`, batch);
      if (lt !== lf)
        return reject("CHAIN_UNCHANGED", `batch ${batch} is listed as unchanged, but its roots differ`, batch);
      unchanged++;
      done++;
      continue;
    }
    const { blockJson, proof } = linkBlockAndProof(l);
    if (blockJson === undefined || proof === undefined)
      return reject(
        "CHAIN_MALFORMED",
        `batch ${batch}: a link carries its block (block.json) and proof (base64), or unchanged: true`,
        batch,
      );
    let described: {
      batch?: unknown;
      part?: unknown;
      parts?: unknown;
      from_root?: unknown;
      to_root?: unknown;
      profile?: unknown;
    };
    try {
      described = JSON.parse(blockJson) as typeof described;
    } catch {
      described = {};
    }
    if (described?.profile !== "v3")
      return reject(
        "BLOCK_JSON",
        `batch ${batch}: a chain's blocks are profile v3 blocks (checked from their roots and block.json alone)`,
        batch,
      );
    if (
      described.batch !== batch ||
      described.part !== l.part ||
      described.parts !== l.parts ||
      described.from_root !== lf ||
      described.to_root !== lt
    )
      return reject(
        "CHAIN_MALFORMED",
        `batch ${batch}${parted ? ` part ${part}` : ""}: block.json names batch ${JSON.stringify(described.batch)}${described.part !== undefined || described.parts !== undefined ? ` part ${JSON.stringify(described.part)} of ${JSON.stringify(described.parts)}` : ""} from ${JSON.stringify(described.from_root)} to ${JSON.stringify(described.to_root)}, not the link's`,
        batch,
      );
    const at = i;
    const v = verifyRegistryBlock(
      { fromRoot: rootOf(lf)!, toRoot: rootOf(lt)! },
      { blockJson, proof },
      onBlock && ((b) => onBlock(at, b)),
    );
    if (!v.ok) return reject(v.code, `batch ${batch}${parted ? ` part ${part}` : ""}: ${v.reason}`, batch);
    blocks++;
    root = lt;
    if (!parted) done++;
    else if (part + 1 < l.parts!) open = { batch, part: part + 1, parts: l.parts! };
    else {
      open = undefined;
      done++;
    }
  }
  if (open !== undefined)
    return reject(
      "CHAIN_END",
      `the chain ends inside batch ${open.batch}: its part ${open.part} of ${open.parts} is missing`,
      open.batch,
    );
  const reached = from.size + done;
  if (reached !== to.size)
    return reject("CHAIN_END", `the chain ends at batch ${reached}, not at size ${to.size}`, reached + 1);
  if (root !== formatRoot(toRoot))
    return reject(
      "CHAIN_END",
      `the chain ends at root ${root}, not at the root ${formatRoot(toRoot)} of size ${to.size}`,
      to.size,
    );
  return { ok: true, blocks, unchanged };
}

/**
 * A link's block.json text (a string as it is, an object as `JSON.stringify` writes it) and its
 * proof bytes (as they are, or from base64); undefined where the link holds neither form.
 * @throws what `bytesOfBase64` throws for a proof that is not base64.
 */
export function linkBlockAndProof(l: { readonly block?: unknown; readonly proof?: unknown }): {
  blockJson: string | undefined;
  proof: Uint8Array | undefined;
} {
  const blockJson =
    typeof l.block === "string"
      ? l.block
      : l.block !== null && typeof l.block === "object"
        ? JSON.stringify(l.block)
        : undefined;
  const proof =
    l.proof instanceof Uint8Array ? l.proof : typeof l.proof === "string" ? bytesOfBase64(l.proof) : undefined;
  return { blockJson, proof };
}
