/**
 * Following a primary past its last proved block (docs/scale-out.md "Registry proof jobs"): a
 * registry worker must hold batches whose blocks are not proved yet — it is asked to prove them,
 * and to prove names at the head. For each batch after its copy's head, up to the primary's head,
 * it reads the primary's signed checkpoint of that size (checked with the key and origin) and the
 * batch's change list (`GET /v1/changes/:batch`), applies the updates to its own tree and keeps
 * the batch only when the root they reach is the checkpoint's (apply.ts `applyCheckpointedBatch`):
 * the root binds the whole tree, so what it keeps is the state the primary signed. Batches whose
 * blocks are proved are followed by `Mirror.sync` (mirror.ts), which checks the blocks too.
 */
import { blockUpdateOf, type BlockUpdate } from "../registry/name-block.js";
import type { Digest } from "../hash/digest.js";
import { applyCheckpointedBatch } from "./apply.js";
import { boundedGet, jsonObject, unexpected, type RequestBounds } from "./client.js";
import { MirrorError } from "./errors.js";
import { verifiedCheckpoint, type Mirror } from "./mirror.js";

/** Bytes of a checkpoint answer at most. */
const CHECKPOINT_BYTES = 64 * 1024;
/** Bytes of one part of a change list at most (4,096 updates with long values). */
const CHANGES_BYTES = 48 * 1024 * 1024;
/** Updates of one batch at most (the sequencer's largest epoch is far below). */
const MAX_BATCH_UPDATES = 4_000_000;

/** What `followByChanges` did. */
export interface FollowResult {
  readonly batches: number;
  readonly updates: number;
  /** The copy's size after it. */
  readonly size: number;
  /** The primary's head size it followed to. */
  readonly target: number;
}

/** The primary's signed checkpoint of a size (the head's without one), verified. */
async function checkpointOf(
  m: Mirror,
  bounds: RequestBounds,
  size?: number,
): Promise<{ text: string; size: number; root: Digest }> {
  const url = `${m.base}/v1/checkpoint${size !== undefined ? `?size=${size}` : ""}`;
  const a = await boundedGet(url, bounds);
  if (a.status !== 200) throw unexpected(url, a);
  const text = a.body.toString("utf8");
  const body = verifiedCheckpoint(text, m.key, url);
  if (size !== undefined && body.size !== size)
    throw new MirrorError("MIRROR_NOT_REGISTRY", `${url}: the checkpoint of size ${body.size}, not ${size}`);
  return { text, size: body.size, root: body.root };
}

/** A batch's updates, every part of its change list in order. */
async function changesOf(m: Mirror, batch: number, timeoutMs: number): Promise<BlockUpdate[]> {
  const out: BlockUpdate[] = [];
  for (let part = 0, parts = 1; part < parts; part++) {
    const url = `${m.base}/v1/changes/${batch}?part=${part}`;
    const a = await boundedGet(url, { timeoutMs, maxBytes: CHANGES_BYTES });
    if (a.status !== 200) throw unexpected(url, a);
    const page = jsonObject(url, a);
    const n = page.parts;
    const updates = page.updates;
    if (
      page.batch !== batch ||
      page.part !== part ||
      !Number.isSafeInteger(n) ||
      (n as number) < 0 ||
      !Number.isSafeInteger(updates) ||
      (updates as number) > MAX_BATCH_UPDATES ||
      !Array.isArray(page.changes)
    )
      throw new MirrorError("MIRROR_NOT_REGISTRY", `${url}: not a change list of batch ${batch} part ${part}`);
    parts = Math.max(1, n as number);
    for (const c of page.changes as unknown[]) {
      try {
        out.push(blockUpdateOf(c, out.length + 1));
      } catch (e) {
        throw new MirrorError("MIRROR_NOT_REGISTRY", `${url}: ${(e as Error).message}`.slice(0, 500));
      }
    }
    if (out.length > (updates as number))
      throw new MirrorError("MIRROR_NOT_REGISTRY", `${url}: more changes than the ${String(updates)} it announces`);
  }
  return out;
}

/**
 * Applies the primary's batches after the copy's head, up to the primary's head (or `upTo` when
 * lower), each from its change list and kept only at its signed checkpoint's root; after
 * `m.stop()`, no further batch.
 * @throws MirrorError of a request (`MIRROR_UNREACHABLE`, `MIRROR_TIMEOUT`, …), of a checkpoint
 *   (`MIRROR_BAD_SIGNATURE`, `MIRROR_WRONG_ORIGIN`), `MIRROR_ROOT_MISMATCH` (nothing of that
 *   batch written); RegistryError of an update that cannot be applied.
 */
export async function followByChanges(m: Mirror, timeoutMs: number, upTo?: number): Promise<FollowResult> {
  const bounds = { timeoutMs, maxBytes: CHECKPOINT_BYTES };
  const head = await checkpointOf(m, bounds);
  const target = upTo === undefined ? head.size : Math.min(upTo, head.size);
  let batches = 0;
  let updates = 0;
  while (m.store.head().batch < target && !m.stopRequested) {
    const b = m.store.head().batch + 1;
    const ck = b === head.size ? head : await checkpointOf(m, bounds, b);
    const list = await changesOf(m, b, timeoutMs);
    updates += applyCheckpointedBatch(m.rows, { batch: b, updates: list, checkpoint: ck.text, root: ck.root }, m.index);
    batches++;
  }
  return { batches, updates, size: m.store.head().batch, target };
}
