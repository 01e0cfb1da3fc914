/**
 * Writing a block directory (`ssgkr registry prove-block`, docs/registry.md "Block proofs"): the
 * next K updates applied as one batch, proved as one profile v2 aggregate (written as block.bin,
 * requests.json and block.json) or one profile v3 block (block.bin and block.json only: the
 * auditor needs no witness), crash-safely:
 *
 * 1. `recorded`: a pending block row (DIR, target batch, pid) is committed in the registry;
 * 2. `writing` / `written`: inside the batch's write transaction the block is proved, verified
 *    and written into the hidden sibling `.DIR.block-<pid>`;
 * 3. `committed`: the transaction commits the batch and marks the row committed together;
 * 4. `renamed`: the sibling is renamed to DIR;
 * 5. `cleared`: the row is removed.
 *
 * A failure removes the sibling and the row; a kill at any step leaves a row that the next open
 * of the registry settles by the registry's head (pending-block.ts). A v3 block's files are also
 * stored in the registry in the batch's transaction (store/block-rows.ts), so a committed v3
 * block can be served (`GET /v1/blocks/{batch}`) whatever happens to DIR.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { OpKind } from "../statement/types.js";
import { fromOpRequest } from "../sync/request-convert.js";
import { requestToJson } from "../sync/request.js";
import { prepareV2, proveBlock, updateRequestOf, verifyBlock } from "../sync/v2/index.js";
import { proveBlockV3, verifyBlockV3 } from "../sync/v3/index.js";
import { maxZkBlockUpdates, oldLeafRule, preparedUpdateV3, v3BlockUpdate } from "./block-v3.js";
import { MAX_BLOCK_UPDATES } from "./block-limits.js";
import { blockParts, maxBlockUpdates } from "./block-size.js";
import { provePartsOnWorkers } from "./block-part-pool.js";
import { digestEquals } from "../hash/digest.js";
import { RegistryError } from "./errors.js";
import { formatRoot } from "./root.js";
import { applyNameBlock, type AppliedBlock, type BlockUpdate } from "./name-block.js";
import type { Digest } from "../hash/digest.js";
import type { NameStore } from "./store/name-store.js";
import { hiddenBlockDir, type PendingBlock } from "./store/pending-block.js";
import { updateJson } from "./verify-block.js";
import type { ProvableBlock } from "./provable-block.js";

/** The steps of `proveBlockToDir`, in order (see the file comment). */
export type BlockStep = "recorded" | "writing" | "written" | "committed" | "renamed" | "cleared";

/** The proof profile of a block: `"v2"` (the default: proof, requests and description) or `"v3"` (proof and description). */
export type BlockProfile = "v2" | "v3";

/** What `proveBlockToDir` committed and wrote. */
export interface BlockWritten {
  readonly applied: AppliedBlock;
  /** Bytes of block.bin. */
  readonly bytes: number;
  /** Proving time (ms), circuit preparation excluded. */
  readonly proveMs: number;
}

export type { ProvableBlock } from "./provable-block.js";

/** The block.json update of an applied update (restore with the value it restored). */
function listed(u: AppliedBlock["updates"][number]): BlockUpdate {
  return {
    op: u.update.op,
    name: u.update.name,
    ...(u.planned.newValue !== undefined ? { value: u.planned.newValue } : {}),
  };
}

/** An applied block as a block to prove. */
function provable(a: Omit<AppliedBlock, "entry">): ProvableBlock {
  return {
    fromRoot: a.fromRoot,
    toRoot: a.toRoot,
    updates: a.updates.map((u) => ({ listed: listed(u), record: u.record })),
  };
}

/**
 * The files of a block (block.json keys are snake_case like the request files): v2 block.bin,
 * requests.json, block.json; v3 block.bin, block.json.
 * @param batch the registry batch the block commits (block.json's `batch`).
 */
export function blockFiles(
  profile: BlockProfile,
  a: ProvableBlock,
  batch: number,
  depth: number,
  leafMaxFields: number,
  proof: Uint8Array,
  proveMs: number,
  part?: { readonly part: number; readonly parts: number },
): [string, string | Uint8Array][] {
  const block = {
    profile,
    kind: "block",
    depth,
    leaf_max_fields: leafMaxFields,
    operations: a.updates.length,
    batch,
    ...(part !== undefined && part.parts > 1 ? { part: part.part, parts: part.parts } : {}),
    from_root: formatRoot(a.fromRoot),
    to_root: formatRoot(a.toRoot),
    proof_bytes: proof.length,
    prove_ms: Math.round(proveMs),
    updates: a.updates.map((u) => updateJson(u.listed)),
  };
  const description: [string, string] = ["block.json", JSON.stringify(block, null, 2) + "\n"];
  if (profile === "v3") return [["block.bin", proof], description];
  const requests = a.updates.map((u) =>
    requestToJson(fromOpRequest(updateRequestOf(u.record, leafMaxFields), depth, leafMaxFields)),
  );
  return [["block.bin", proof], ["requests.json", JSON.stringify(requests) + "\n"], description];
}

/** Options of `proveBlockToDir` and `proveBlockToDirInParallel`. */
export interface BlockDirOptions {
  /** `"v2"` (the default without `zk`) or `"v3"`. */
  readonly profile?: BlockProfile;
  /** A zero-knowledge block (v3-zk, docs/profile-v3.md §11; with profile v2 `BAD_PROFILE`). */
  readonly zk?: boolean;
  /** Called after each step (tests stop the process there). */
  readonly onStep?: (step: BlockStep) => void;
  /** Called after each proved part of a block proved in parts (0-based part, parts, proving ms). */
  readonly onPart?: (part: number, parts: number, proveMs: number) => void;
}

/**
 * The parts a profile v3 block is proved in: at most `perPart` updates each, in order, each from
 * the root the part before left (one part: the block itself, without part numbers).
 */
export function blockPartsOf(
  a: ProvableBlock,
  perPart: number,
): (ProvableBlock & { readonly part: number; readonly parts: number })[] {
  const parts = blockParts(a.updates.length, perPart);
  const out: (ProvableBlock & { part: number; parts: number })[] = [];
  for (let p = 0; p < parts; p++) {
    const updates = a.updates.slice(p * perPart, (p + 1) * perPart);
    out.push({
      fromRoot: updates[0]!.record.oldRoot,
      toRoot: updates[updates.length - 1]!.record.newRoot,
      updates,
      part: p,
      parts,
    });
  }
  return out;
}

/** The most updates one proof of this block holds: the commitment's bound for v3 (v3-zk's for zk), the format's for v2. */
function partSize(profile: BlockProfile, zk: boolean, depth: number, leafMaxFields: number): number {
  if (profile === "v2") return MAX_BLOCK_UPDATES;
  return zk ? maxZkBlockUpdates(depth, undefined, leafMaxFields) : maxBlockUpdates(depth, undefined, leafMaxFields);
}

/** The directory a part's files go in: DIR itself for a block of one part, DIR/part-N otherwise. */
export function partDir(dir: string, part: number, parts: number): string {
  return parts > 1 ? join(dir, `part-${part}`) : dir;
}

/**
 * Writes the proved parts of a committed-to-be block into `dir` (a block of one part: block.bin
 * and block.json; of several: part-0 … part-(n−1), each with its block.bin and block.json naming
 * its `part` and `parts`), and keeps v3 proofs in the registry with the batch.
 */
function writeParts(
  store: NameStore,
  profile: BlockProfile,
  batch: number,
  dir: string,
  proved: readonly {
    readonly block: ProvableBlock & { part: number; parts: number };
    readonly proof: Uint8Array;
    readonly proveMs: number;
  }[],
  step: (s: BlockStep) => void,
): void {
  const { depth, leafMaxFields } = store.config;
  for (const { block, proof, proveMs } of proved) {
    const where = partDir(dir, block.part, block.parts);
    mkdirSync(where, { recursive: true });
    const files = blockFiles(profile, block, batch, depth, leafMaxFields, proof, proveMs, block);
    files.forEach(([name, content], i) => {
      writeFileSync(join(where, name), content);
      if (i === 0 && block.part === 0) step("writing");
    });
    // A v3 block is also kept in the registry (it commits with the batch): served at GET /v1/blocks.
    if (profile === "v3") {
      const blockJson = files.find(([name]) => name === "block.json")![1] as string;
      store.recordBlockProof(
        {
          batch,
          profile: "v3",
          operations: block.updates.length,
          from_root: formatRoot(block.fromRoot),
          to_root: formatRoot(block.toRoot),
          proof_bytes: proof.length,
          json_bytes: Buffer.byteLength(blockJson, "utf8"),
          ...(block.parts > 1 ? { part: block.part, parts: block.parts } : {}),
        },
        blockJson,
        proof,
      );
    }
  }
  step("written");
}

/** The profile of a block from the options. @throws RegistryError `BAD_PROFILE`. */
function profileOf(options: BlockDirOptions): { profile: BlockProfile; zk: boolean } {
  const zk = options.zk === true;
  const profile = options.profile ?? (zk ? "v3" : "v2");
  if (zk && profile !== "v3")
    throw new RegistryError(
      "BAD_PROFILE",
      `options.zk: a zero-knowledge block is a profile v3 block (v3-zk); it cannot be made with profile ${JSON.stringify(profile)}`,
    );
  return { profile, zk };
}

/**
 * Applies `updates` to a name-keyed registry as one committed batch and writes its block proof
 * into `out` (absent or empty; the caller checks), crash-safely (see the file comment). A v3 block
 * of more updates than one proof holds at the registry's depth (`maxBlockUpdates`, 2,048 at depth
 * 48) is proved in parts, one after another on the calling thread (`proveBlockToDirInParallel`
 * proves them on worker threads), written to out/part-N.
 * @param options `profile` (default `"v2"`, `"v3"` with `zk`); `zk`: a zero-knowledge block (v3-zk,
 *   docs/profile-v3.md §11; with profile v2 `BAD_PROFILE`); `onStep`, called after each step (tests stop the process there).
 * @throws RegistryError of the batch (nothing committed, nothing written: see `applyNameBlock`),
 *   `PROOF_FAILED` if the block proof does not verify, `CONCURRENT_UPDATE`.
 * @example
 *   const store = NameStore.open("./names");
 *   const { applied } = proveBlockToDir(store, parseBlockUpdates(text), "./block-7");
 *   await store.close();
 */
export function proveBlockToDir(
  store: NameStore,
  updates: readonly BlockUpdate[],
  out: string,
  options: BlockDirOptions = {},
): BlockWritten {
  const { profile, zk } = profileOf(options);
  const { depth, leafMaxFields } = store.config;
  const prove = profile === "v3" ? blockProverV3(depth, leafMaxFields, { zk }) : blockProverV2(depth, leafMaxFields);
  const perPart = partSize(profile, zk, depth, leafMaxFields);
  let proveMs = 0,
    bytes = 0;
  const applied = commitWithFiles(store, updates, out, options, (a, batch, dir, step) => {
    const proved = blockPartsOf(a, perPart).map((block) => {
      const t0 = performance.now();
      const proof = prove(block);
      const ms = performance.now() - t0;
      options.onPart?.(block.part, block.parts, ms);
      proveMs += ms;
      bytes += proof.length;
      return { block, proof, proveMs: ms };
    });
    writeParts(store, profile, batch, dir, proved, step);
  });
  return { applied, bytes, proveMs };
}

/**
 * The crash-safe frame of a block directory (see the file comment): the pending row, the hidden
 * sibling, `write(applied, batch, hidden, step)` inside the batch's write transaction, the rename.
 */
function commitWithFiles(
  store: NameStore,
  updates: readonly BlockUpdate[],
  out: string,
  options: BlockDirOptions,
  write: (a: ProvableBlock, batch: number, dir: string, step: (s: BlockStep) => void) => void,
  expected?: { readonly batch: number; readonly toRoot: Digest },
): AppliedBlock {
  const step = options.onStep ?? (() => {});
  let pending: PendingBlock | undefined;
  let hidden: string | undefined;
  let applied: AppliedBlock;
  try {
    pending = store.recordPendingBlock(out);
    const dir = hiddenBlockDir(pending.dir, pending.pid);
    hidden = dir;
    step("recorded");
    rmSync(dir, { recursive: true, force: true });
    if (expected !== undefined && pending.batch !== expected.batch + 1)
      throw new RegistryError(
        "CONCURRENT_UPDATE",
        `the registry moved from batch ${expected.batch} to ${pending.batch - 1} while the block was proved; nothing was committed`,
        { batch: pending.batch - 1 },
      );
    applied = applyNameBlock(
      store,
      updates,
      (applied) => {
        const a = provable(applied);
        if (expected !== undefined && !digestEquals(a.toRoot, expected.toRoot))
          throw new RegistryError("CONCURRENT_UPDATE", "the block no longer leads to the root it was proved for", {
            batch: pending!.batch,
          });
        write(a, pending!.batch, dir, step);
      },
      { pending, expectBatch: pending.batch - 1 },
    );
  } catch (e) {
    if (hidden !== undefined) rmSync(hidden, { recursive: true, force: true });
    if (pending !== undefined) store.clearPendingBlock(pending);
    throw e;
  }
  step("committed");
  if (existsSync(pending.dir)) rmSync(pending.dir, { recursive: true });
  renameSync(hidden, pending.dir);
  step("renamed");
  store.clearPendingBlock(pending);
  step("cleared");
  return applied;
}

/** The block `updates` would make if applied now, and the head it would follow: planned in a write transaction that is abandoned (nothing is written). */
function planBlock(store: NameStore, updates: readonly BlockUpdate[]): { batch: number; block: ProvableBlock } {
  const stop = new Error("planned");
  let planned: { batch: number; block: ProvableBlock } | undefined;
  const batch = store.head().batch;
  try {
    applyNameBlock(
      store,
      updates,
      (applied) => {
        planned = { batch, block: provable(applied) };
        throw stop;
      },
      { expectBatch: batch },
    );
  } catch (e) {
    if (e !== stop) throw e;
  }
  return planned!;
}

/**
 * `proveBlockToDir` with the parts of a v3 block proved at once on `workers` worker threads
 * (block-part-pool.ts; default one per core): the block is planned against the head (nothing
 * written), its parts proved and checked on the workers, then the batch is committed with the
 * proofs, crash-safely as `proveBlockToDir` does. A block of one part, a v2 block, or `workers`
 * 1 is proved by `proveBlockToDir` on the calling thread.
 * @throws what `proveBlockToDir` throws; `CONCURRENT_UPDATE` when another writer committed while
 *   the parts were proved (nothing committed).
 * @example
 *   const { applied } = await proveBlockToDirInParallel(store, parseBlockUpdates(text), "./block-7", { profile: "v3" });
 */
export async function proveBlockToDirInParallel(
  store: NameStore,
  updates: readonly BlockUpdate[],
  out: string,
  options: BlockDirOptions & { readonly workers?: number } = {},
): Promise<BlockWritten> {
  const { profile, zk } = profileOf(options);
  const { depth, leafMaxFields } = store.config;
  const perPart = partSize(profile, zk, depth, leafMaxFields);
  const workers = options.workers ?? availableParallelism();
  if (profile !== "v3" || workers <= 1 || updates.length <= perPart)
    return proveBlockToDir(store, updates, out, options);
  const planned = planBlock(store, updates);
  const parts = blockPartsOf(planned.block, perPart);
  const proofs = await provePartsOnWorkers(parts, { depth, leafMaxFields, zk, workers, onPart: options.onPart });
  const applied = commitWithFiles(
    store,
    updates,
    out,
    options,
    (a, batch, dir, step) =>
      writeParts(
        store,
        profile,
        batch,
        dir,
        blockPartsOf(a, perPart).map((block, i) => ({ block, proof: proofs[i]!.proof, proveMs: proofs[i]!.proveMs })),
        step,
      ),
    { batch: planned.batch, toRoot: planned.block.toRoot },
  );
  return {
    applied,
    bytes: proofs.reduce((n, p) => n + p.proof.length, 0),
    proveMs: proofs.reduce((n, p) => n + p.proveMs, 0),
  };
}

/** Proves and checks a v2 block (an aggregate of the Update requests). */
function blockProverV2(depth: number, leafMaxFields: number): (a: ProvableBlock) => Uint8Array {
  const prepared = prepareV2(OpKind.Update, { depth, leafMaxFields });
  return (a) => {
    const requests = a.updates.map((u) => updateRequestOf(u.record, leafMaxFields));
    const proof = proveBlock(prepared, requests);
    const verdict = verifyBlock({ fromRoot: a.fromRoot, toRoot: a.toRoot }, requests, proof, { prepared });
    if (!verdict.ok)
      throw new RegistryError(
        "PROOF_FAILED",
        `the block proof does not verify (${verdict.code}: ${verdict.reason}); nothing was committed`,
      );
    return proof;
  };
}

/**
 * A prover of profile v3 blocks of one configuration: proves a block and checks it as the auditor
 * will, from the roots and block.json's updates alone; with `zk`, in the zero-knowledge mode v3-zk.
 * @throws RegistryError `PROOF_FAILED` (from the returned function) when the proof does not verify.
 */
export function blockProverV3(
  depth: number,
  leafMaxFields: number,
  options: { readonly zk?: boolean } = {},
): (a: ProvableBlock) => Uint8Array {
  const prepared = preparedUpdateV3(depth, leafMaxFields);
  return (a) => {
    const requests = a.updates.map((u) => updateRequestOf(u.record, leafMaxFields));
    const proof = proveBlockV3(prepared, requests, {
      rules: a.updates.map((u) => oldLeafRule(u.listed)),
      ...(options.zk === true ? { zk: true } : {}),
    });
    const list = a.updates.map((u, i) => v3BlockUpdate(u.listed, i, depth, leafMaxFields));
    const verdict = verifyBlockV3(prepared, { fromRoot: a.fromRoot, toRoot: a.toRoot }, list, proof);
    if (!verdict.ok)
      throw new RegistryError(
        "PROOF_FAILED",
        `the block proof does not verify (${verdict.code}: ${verdict.reason}); nothing was committed`,
      );
    return proof;
  };
}
