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
import { join } from "node:path";
import { OpKind } from "../statement/types.js";
import { fromOpRequest } from "../sync/request-convert.js";
import { requestToJson } from "../sync/request.js";
import { prepareV2, proveBlock, updateRequestOf, verifyBlock } from "../sync/v2/index.js";
import { proveBlockV3, verifyBlockV3 } from "../sync/v3/index.js";
import { oldLeafRule, preparedUpdateV3, v3BlockUpdate } from "./block-v3.js";
import { RegistryError } from "./errors.js";
import { formatRoot } from "./root.js";
import { applyNameBlock, type AppliedBlock, type BlockUpdate } from "./name-block.js";
import type { Digest } from "../hash/digest.js";
import type { UpdateRecord } from "../smt/tree.js";
import type { NameStore } from "./store/name-store.js";
import { hiddenBlockDir, type PendingBlock } from "./store/pending-block.js";
import { updateJson } from "./verify-block.js";

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

/**
 * A block to prove: its roots and, per update, the update as block.json lists it (a restore with
 * the value it restored) and the values its proof needs (old and new leaf, siblings, roots).
 */
export interface ProvableBlock {
  readonly fromRoot: Digest;
  readonly toRoot: Digest;
  readonly updates: readonly { readonly listed: BlockUpdate; readonly record: UpdateRecord }[];
}

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

/**
 * Applies `updates` to a name-keyed registry as one committed batch and writes its block proof
 * into `out` (absent or empty; the caller checks), crash-safely (see the file comment).
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
  options: {
    readonly profile?: BlockProfile;
    readonly zk?: boolean;
    readonly onStep?: (step: BlockStep) => void;
  } = {},
): BlockWritten {
  const step = options.onStep ?? (() => {});
  const zk = options.zk === true;
  const profile = options.profile ?? (zk ? "v3" : "v2");
  if (zk && profile !== "v3")
    throw new RegistryError(
      "BAD_PROFILE",
      `options.zk: a zero-knowledge block is a profile v3 block (v3-zk); it cannot be made with profile ${JSON.stringify(profile)}`,
    );
  const { depth, leafMaxFields } = store.config;
  const prove = profile === "v3" ? blockProverV3(depth, leafMaxFields, { zk }) : blockProverV2(depth, leafMaxFields);
  let pending: PendingBlock | undefined;
  let hidden: string | undefined;
  let proveMs = 0,
    bytes = 0;
  let applied: AppliedBlock;
  try {
    pending = store.recordPendingBlock(out);
    const dir = hiddenBlockDir(pending.dir, pending.pid);
    hidden = dir;
    step("recorded");
    rmSync(dir, { recursive: true, force: true });
    applied = applyNameBlock(
      store,
      updates,
      (applied) => {
        const a = provable(applied);
        const t0 = performance.now();
        const proof = prove(a);
        proveMs = performance.now() - t0;
        bytes = proof.length;
        mkdirSync(dir, { recursive: true });
        const files = blockFiles(profile, a, pending!.batch, depth, leafMaxFields, proof, proveMs);
        files.forEach(([name, content], i) => {
          writeFileSync(join(dir, name), content);
          if (i === 0) step("writing");
        });
        // A v3 block is also kept in the registry (it commits with the batch): served at GET /v1/blocks.
        if (profile === "v3") {
          const blockJson = files.find(([name]) => name === "block.json")![1] as string;
          store.recordBlockProof(
            {
              batch: pending!.batch,
              profile: "v3",
              operations: a.updates.length,
              from_root: formatRoot(a.fromRoot),
              to_root: formatRoot(a.toRoot),
              proof_bytes: proof.length,
              json_bytes: Buffer.byteLength(blockJson, "utf8"),
            },
            blockJson,
            proof,
          );
        }
        step("written");
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
  return { applied, bytes, proveMs };
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
