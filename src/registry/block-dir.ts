/**
 * Writing a block directory (`ssgkr registry prove-block`, docs/registry.md "Block proofs"): the
 * next K updates applied as one batch, proved as one profile v2 aggregate and written as
 * block.bin, requests.json and block.json, crash-safely:
 *
 * 1. `recorded`: a pending block row (DIR, target batch, pid) is committed in the registry;
 * 2. `writing` / `written`: inside the batch's write transaction the block is proved, verified
 *    and written into the hidden sibling `.DIR.block-<pid>`;
 * 3. `committed`: the transaction commits the batch and marks the row committed together;
 * 4. `renamed`: the sibling is renamed to DIR;
 * 5. `cleared`: the row is removed.
 *
 * A failure removes the sibling and the row; a kill at any step leaves a row that the next open
 * of the registry settles by the registry's head (pending-block.ts).
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OpKind } from "../statement/types.js";
import { fromOpRequest } from "../sync/request-convert.js";
import { requestToJson } from "../sync/request.js";
import { prepareV2, proveBlock, updateRequestOf, verifyBlock } from "../sync/v2/index.js";
import { RegistryError } from "./errors.js";
import { formatRoot } from "./root.js";
import { applyNameBlock, type AppliedBlock, type BlockUpdate } from "./name-block.js";
import type { NameStore } from "./store/name-store.js";
import { hiddenBlockDir, type PendingBlock } from "./store/pending-block.js";
import { updateJson } from "./verify-block.js";

/** The steps of `proveBlockToDir`, in order (see the file comment). */
export type BlockStep = "recorded" | "writing" | "written" | "committed" | "renamed" | "cleared";

/** What `proveBlockToDir` committed and wrote. */
export interface BlockWritten {
  readonly applied: AppliedBlock;
  /** Bytes of block.bin. */
  readonly bytes: number;
  /** Proving time (ms), circuit preparation excluded. */
  readonly proveMs: number;
}

/** The three files of a block (block.json keys are snake_case like the request files). */
function blockFiles(a: Omit<AppliedBlock, "entry">, batch: number, depth: number, leafMaxFields: number, proof: Uint8Array, proveMs: number): [string, string | Uint8Array][] {
  const requests = a.updates.map((u) => requestToJson(fromOpRequest(updateRequestOf(u.record, leafMaxFields), depth, leafMaxFields)));
  const block = {
    profile: "v2",
    kind: "block",
    depth,
    leaf_max_fields: leafMaxFields,
    operations: a.updates.length,
    batch,
    from_root: formatRoot(a.fromRoot),
    to_root: formatRoot(a.toRoot),
    proof_bytes: proof.length,
    prove_ms: Math.round(proveMs),
    updates: a.updates.map((u) => updateJson({ op: u.update.op, name: u.update.name, ...(u.planned.newValue !== undefined ? { value: u.planned.newValue } : {}) })),
  };
  return [["block.bin", proof], ["requests.json", JSON.stringify(requests) + "\n"], ["block.json", JSON.stringify(block, null, 2) + "\n"]];
}

/**
 * Applies `updates` to a name-keyed registry as one committed batch and writes its block proof
 * into `out` (absent or empty; the caller checks), crash-safely (see the file comment).
 * @param onStep called after each step (tests stop the process there).
 * @throws RegistryError of the batch (nothing committed, nothing written: see `applyNameBlock`),
 *   `PROOF_FAILED` if the block proof does not verify, `CONCURRENT_UPDATE`.
 * @example
 *   const store = NameStore.open("./names");
 *   const { applied } = proveBlockToDir(store, parseBlockUpdates(text), "./block-7");
 *   await store.close();
 */
export function proveBlockToDir(store: NameStore, updates: readonly BlockUpdate[], out: string, options: { onStep?: (step: BlockStep) => void } = {}): BlockWritten {
  const step = options.onStep ?? (() => {});
  const { depth, leafMaxFields } = store.config;
  const prepared = prepareV2(OpKind.Update, { depth, leafMaxFields });
  let pending: PendingBlock | undefined;
  let hidden: string | undefined;
  let proveMs = 0, bytes = 0;
  let applied: AppliedBlock;
  try {
    pending = store.recordPendingBlock(out);
    const dir = hiddenBlockDir(pending.dir, pending.pid);
    hidden = dir;
    step("recorded");
    rmSync(dir, { recursive: true, force: true });
    applied = applyNameBlock(store, updates, (a) => {
      const requests = a.updates.map((u) => updateRequestOf(u.record, leafMaxFields));
      const t0 = performance.now();
      const proof = proveBlock(prepared, requests);
      proveMs = performance.now() - t0;
      const verdict = verifyBlock({ fromRoot: a.fromRoot, toRoot: a.toRoot }, requests, proof, { prepared });
      if (!verdict.ok) throw new RegistryError("PROOF_FAILED", `the block proof does not verify (${verdict.code}: ${verdict.reason}); nothing was committed`);
      bytes = proof.length;
      mkdirSync(dir, { recursive: true });
      blockFiles(a, pending!.batch, depth, leafMaxFields, proof, proveMs).forEach(([name, content], i) => {
        writeFileSync(join(dir, name), content);
        if (i === 0) step("writing");
      });
      step("written");
    }, { pending, expectBatch: pending.batch - 1 });
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
