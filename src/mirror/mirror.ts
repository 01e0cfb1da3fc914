/**
 * A registry mirror (docs/scale-out.md "Registry mirrors"): a copy of a primary's name-keyed
 * registry that applies only what it verified. It trusts the verifier key it is given (and the
 * origin in it) and nothing else: each round (`sync`) it reads the primary's signed head
 * checkpoint, checks its signature and origin, checks the primary's checkpoint of its own
 * position against the one it stored (two validly signed checkpoints of one size with different
 * roots: a fork), then goes through the chain of block proofs (`GET /v1/consistency`) batch by
 * batch: the primary's signed checkpoint of that batch (`GET /v1/checkpoint?size=N`), the batch's
 * links checked between the two checkpoints (`verifyConsistency`), then its updates applied as
 * one batch with its checkpoint (apply.ts), so its batch numbers are the primary's and its
 * position commits with its state.
 *
 * On anything that does not verify it halts: it applies nothing more, keeps its last verified
 * state, reports the problem (`status().problem`) and writes the evidence (the checkpoints, the
 * offending links) to a file.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { digestEquals, type Digest } from "../hash/digest.js";
import { formatRoot } from "../registry/root.js";
import { NAME_MAPPING_ID } from "../registry/name-key.js";
import { parseVerifierKey, type VerifierKey } from "../registry/checkpoint/note.js";
import { verifyCheckpoint, type CheckpointBody } from "../registry/checkpoint/checkpoint.js";
import { verifyConsistency, type ConsistencyLink } from "../registry/consistency/verify-consistency.js";
import { NameStore } from "../registry/store/name-store.js";
import type { VerifiedV3Block } from "../registry/verify-block.js";
import { SsgkrError } from "../errors.js";
import { applyVerifiedBatch, decodedLinks, linkBlocks, MirrorRows, type BlockJson } from "./apply.js";
import type { KeyIndex } from "../registry/sequencer/epoch.js";
import { boundedGet, jsonObject, primaryBase, unexpected, type RequestBounds } from "./client.js";
import { haltsMirror, MirrorError, type MirrorErrorCode } from "./errors.js";
import { holdFolder, type FolderHold } from "../registry/store/folder-hold.js";

/** Options of a mirror. */
export interface MirrorOptions {
  /** The primary's API, e.g. `http://127.0.0.1:8080`. */
  readonly from: string;
  /** The verifier key text `ssgkr registry keygen` prints (`NAME+HASH+KEY`). */
  readonly key: string;
  /** The mirror's registry folder (created, with the primary's configuration, when absent). */
  readonly db: string;
  /** Milliseconds per request, body included (default 30,000). */
  readonly timeoutMs?: number;
  /** Milliseconds a round waits for blocks still being proved (202 PROOF_PENDING; default 300,000). */
  readonly pendingWaitMs?: number;
  /** Folder of evidence files (default `<db>.evidence`). */
  readonly evidenceDir?: string;
  /** Batches per consistency page asked for (default 16). */
  readonly pageBatches?: number;
}

/** A problem that halted the mirror. */
export interface MirrorProblem {
  readonly code: MirrorErrorCode;
  readonly message: string;
  readonly at: string;
  /** The evidence file (undefined when it could not be written). */
  readonly evidence?: string;
}

/** What one round did. */
export interface SyncResult {
  /** Batches applied. */
  readonly batches: number;
  /** Updates applied. */
  readonly updates: number;
  /** The mirror's size after the round. */
  readonly size: number;
  /** The primary's head size the round caught up to. */
  readonly target: number;
}

/** Bytes of a checkpoint answer at most. */
const CHECKPOINT_BYTES = 64 * 1024;
/** Bytes of a `/v1/root` answer at most. */
const ROOT_BYTES = 64 * 1024;
/** Bytes of a consistency page at most (8 MiB of proofs and block.json, base64 and JSON around them). */
const PAGE_BYTES = 48 * 1024 * 1024;

/** Thrown inside a round once `stop()` was called: the round ends where it is (sync returns). */
class Stopped extends Error {}

/** Checkpoint texts whose verification a mirror remembers at most. */
const VERIFIED_TEXTS = 64;

/** Checkpoint notes verified with the mirror's key, by their exact text (the head's is verified again only when it changes). */
type VerifiedTexts = Map<string, CheckpointBody>;

/** A mirror of one primary into one registry folder. */
export class Mirror {
  readonly base: string;
  readonly key: VerifierKey;
  readonly store: NameStore;
  readonly rows: MirrorRows;
  /** The stored keys, kept between batches for the batched apply (apply.ts). */
  readonly index: KeyIndex = { batch: -1, keys: new Float64Array(0) };
  private readonly opts: MirrorOptions;
  private halted: MirrorProblem | undefined;
  private lastError: { code: string; message: string; at: string } | undefined;
  private primaryHead: { size: number; root: string; seenAt: string } | undefined;
  /** When the primary was first seen ahead of the mirror (undefined: caught up). */
  private behindSince: number | undefined;
  private lastSyncAt: string | undefined;
  private applied = { batches: 0, updates: 0 };
  private readonly verifiedTexts: VerifiedTexts;
  /** Set by `stop()`: rounds end after the batch they are applying. */
  private stopping = false;
  /** Ends the pause under way early (`stop()`). */
  private wakePause: (() => void) | undefined;

  private constructor(
    opts: MirrorOptions,
    base: string,
    key: VerifierKey,
    store: NameStore,
    private readonly hold: FolderHold,
    verifiedTexts: VerifiedTexts = new Map(),
  ) {
    this.opts = opts;
    this.verifiedTexts = verifiedTexts;
    this.base = base;
    this.key = key;
    this.store = store;
    this.rows = new MirrorRows(store);
  }

  /**
   * Opens the mirror's registry, or creates it from the primary: its head checkpoint verified
   * first, then its depth and leaf bound (`GET /v1/root`); nothing is created unless both are
   * good. An existing folder must be a mirror of a registry of this key.
   * @throws RegistryError `BAD_VERIFIER_KEY`; MirrorError (any code: nothing written).
   */
  static async open(opts: MirrorOptions): Promise<Mirror> {
    const key = parseVerifierKey(opts.key, "--key");
    const base = primaryBase(opts.from);
    const hold = await holdFolder(opts.db, "mirror");
    if (hold === undefined)
      throw new MirrorError(
        "MIRROR_DB_IN_USE",
        `--db ${opts.db}: another process mirrors into this folder (a registry mirror or registry worker); stop it first, or give another --db`,
        { db: opts.db },
      );
    let store: NameStore | undefined;
    try {
      if (existsSync(join(opts.db, "data.mdb"))) {
        store = NameStore.open(opts.db);
        const m = new Mirror(opts, base, key, store, hold);
        m.checkOwnPosition();
        return m;
      }
      const probe = new Mirror.Probe(opts, base, key, new Map());
      await probe.headCheckpoint();
      const config = await probe.config();
      store = NameStore.openOrCreate(opts.db, config);
      return new Mirror(opts, base, key, store, hold, probe.verified);
    } catch (e) {
      store?.closeSync();
      hold.release();
      throw e;
    }
  }

  /** Requests before a store exists (open). */
  private static Probe = class {
    constructor(
      readonly opts: MirrorOptions,
      readonly base: string,
      readonly key: VerifierKey,
      readonly verified: VerifiedTexts,
      /** The pause before a retry after 429 or 503 (the mirror's own, which `stop()` ends). */
      readonly pause?: (ms: number) => Promise<void>,
    ) {}
    bounds(maxBytes: number): RequestBounds {
      return { timeoutMs: this.opts.timeoutMs ?? 30_000, maxBytes };
    }
    async headCheckpoint(size?: number): Promise<{ text: string; body: CheckpointBody }> {
      const url = `${this.base}/v1/checkpoint${size !== undefined ? `?size=${size}` : ""}`;
      const a = await boundedGet(url, this.bounds(CHECKPOINT_BYTES), this.pause);
      if (a.status !== 200) throw unexpected(url, a);
      const text = a.body.toString("utf8");
      let body = this.verified.get(text);
      if (body === undefined) {
        try {
          body = verifiedCheckpoint(text, this.key, url);
        } catch (e) {
          // the offending note goes with the error, for the evidence file
          if (haltsMirror(e)) throw new MirrorError(e.code, e.message, { ...e.details, note: text });
          throw e;
        }
        if (this.verified.size >= VERIFIED_TEXTS) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(text, body);
      }
      if (size !== undefined && body.size !== size)
        throw new MirrorError(
          "MIRROR_NOT_REGISTRY",
          `${url}: the checkpoint of size ${body.size}, not ${size} (the primary does not serve GET /v1/checkpoint?size=N)`,
        );
      return { text, body };
    }
    async config(): Promise<{ depth: number; leafMaxFields: number }> {
      const url = `${this.base}/v1/root`;
      const a = await boundedGet(url, this.bounds(ROOT_BYTES));
      if (a.status !== 200) throw unexpected(url, a);
      const r = jsonObject(url, a);
      if (r.registry_mapping !== NAME_MAPPING_ID || !Number.isInteger(r.depth) || !Number.isInteger(r.leaf_max_fields))
        throw new MirrorError(
          "MIRROR_NOT_REGISTRY",
          `${url}: not the root of a name-keyed registry (a mirror copies name-keyed registries: depth, leaf_max_fields, registry_mapping "${NAME_MAPPING_ID}")`,
        );
      return { depth: r.depth as number, leafMaxFields: r.leaf_max_fields as number };
    }
  };

  /** The stored checkpoint of the head must exist, verify with the key and name the head's root (size 0 may have none yet). */
  private checkOwnPosition(): void {
    const head = this.store.head();
    const text = this.rows.checkpoint(head.batch);
    if (text === undefined) {
      if (head.batch === 0) return;
      throw new MirrorError(
        "MIRROR_DB_MISMATCH",
        `registry at ${this.store.dir} is at batch ${head.batch} with no verified checkpoint of it: it is not a mirror`,
      );
    }
    const c = verifyCheckpoint(text, this.key, "--key");
    if (!c.ok || c.origin !== this.key.name || !digestEquals(c.root, head.root))
      throw new MirrorError(
        "MIRROR_DB_MISMATCH",
        `registry at ${this.store.dir} mirrors another registry (its checkpoint of size ${head.batch} does not verify with --key ${this.key.name})`,
      );
  }

  /** The stored checkpoint text of a size (what the mirror serves), or undefined. */
  checkpointText(size: number): string | undefined {
    return this.rows.checkpoint(size);
  }

  /** The problem that halted the mirror, or undefined. */
  get problem(): MirrorProblem | undefined {
    return this.halted;
  }

  /** The mirror's position, lag and problem (the `mirror` section of `GET /v1/status`). */
  status(): Record<string, unknown> {
    const head = this.store.head();
    const p = this.primaryHead;
    return {
      primary: this.base,
      origin: this.key.name,
      state:
        this.halted !== undefined ? "halted" : p !== undefined && p.size > head.batch ? "catching-up" : "following",
      verified: { size: head.batch, root: formatRoot(head.root) },
      primary_head: p === undefined ? null : { size: p.size, root: p.root, seen_at: p.seenAt },
      lag_batches: p === undefined ? null : Math.max(0, p.size - head.batch),
      lag_s: this.behindSince === undefined ? 0 : Math.round((Date.now() - this.behindSince) / 100) / 10,
      last_sync_at: this.lastSyncAt ?? null,
      applied: { batches: this.applied.batches, updates: this.applied.updates },
      problem:
        this.halted === undefined
          ? null
          : {
              code: this.halted.code,
              message: this.halted.message,
              at: this.halted.at,
              ...(this.halted.evidence !== undefined ? { evidence: this.halted.evidence } : {}),
            },
      last_error: this.lastError ?? null,
    };
  }

  private bounds(maxBytes: number): RequestBounds {
    return { timeoutMs: this.opts.timeoutMs ?? 30_000, maxBytes };
  }

  /** The primary's signed checkpoint (of a size, or the head's), verified with the key and origin. */
  private async checkpoint(size?: number): Promise<{ text: string; body: CheckpointBody }> {
    return new Mirror.Probe(this.opts, this.base, this.key, this.verifiedTexts, (ms) => this.pause(ms)).headCheckpoint(
      size,
    );
  }

  /**
   * One round: catch up to the primary's head as it is when the round starts.
   * @throws MirrorError: a code of `haltsMirror` halts the mirror (recorded, with the
   *   evidence written); any other is a fault of the network or the primary (retry later).
   */
  async sync(): Promise<SyncResult> {
    if (this.halted !== undefined) throw new MirrorError(this.halted.code, `the mirror halted: ${this.halted.message}`);
    const before = { ...this.applied };
    try {
      if (this.stopping) throw new Stopped();
      const r = await this.round();
      this.lastError = undefined;
      this.lastSyncAt = new Date().toISOString();
      return r;
    } catch (e) {
      if (e instanceof Stopped) {
        const size = this.store.head().batch;
        return {
          batches: this.applied.batches - before.batches,
          updates: this.applied.updates - before.updates,
          size,
          target: Math.max(size, this.primaryHead?.size ?? size),
        };
      }
      if (haltsMirror(e)) {
        // a checkpoint that does not verify: the evidence is the one the mirror holds and that one
        const err =
          typeof e.details.evidence === "string"
            ? e
            : this.evidence(e, {
                checkpoints: [
                  this.rows.checkpoint(this.store.head().batch) ?? "",
                  ...(typeof e.details.note === "string" ? [e.details.note] : []),
                ],
              });
        this.halt(err);
        throw err;
      } else if (e instanceof SsgkrError)
        this.lastError = { code: e.code, message: e.message, at: new Date().toISOString() };
      throw e;
    }
  }

  private async round(): Promise<SyncResult> {
    const head = await this.checkpoint();
    this.primaryHead = {
      size: head.body.size,
      root: formatRoot(head.body.root),
      seenAt: new Date().toISOString(),
    };
    let own = this.store.head();
    if (head.body.size > own.batch) this.behindSince ??= Date.now();
    // A new mirror: the primary's checkpoint of size 0 must name the empty registry's root.
    let ownText = this.rows.checkpoint(own.batch);
    let zero: { text: string; body: CheckpointBody } | undefined;
    if (ownText === undefined) {
      zero = await this.checkpoint(0);
      if (!digestEquals(zero.body.root, own.root))
        throw this.evidence(
          new MirrorError(
            "MIRROR_BAD_CHAIN",
            `the primary's checkpoint of size 0 names root ${formatRoot(zero.body.root)}, not the empty registry's ${formatRoot(own.root)} at depth ${this.store.config.depth}, leaf bound ${this.store.config.leafMaxFields}`,
          ),
          { checkpoints: [zero.text] },
        );
      this.rows.recordStart(0, zero.text);
      ownText = zero.text;
    }
    if (head.body.size < own.batch)
      throw this.evidence(
        new MirrorError(
          "MIRROR_FORK",
          `the primary signs size ${head.body.size}, older than size ${own.batch} it signed before (a rollback)`,
          { check: "CHECKPOINT_ROLLBACK" },
        ),
        { checkpoints: [ownText, head.text] },
      );
    // the primary's checkpoint of the mirror's own size must be the one the mirror verified
    const mine =
      head.body.size === own.batch
        ? head
        : zero !== undefined && own.batch === 0
          ? zero
          : await this.checkpoint(own.batch);
    if (!digestEquals(mine.body.root, own.root))
      throw this.evidence(
        new MirrorError(
          "MIRROR_FORK",
          `two signed checkpoints of size ${own.batch} with different roots: ${formatRoot(own.root)} (verified before) and ${formatRoot(mine.body.root)} (the primary's now)`,
          { check: "CHECKPOINT_FORK", size: own.batch },
        ),
        { checkpoints: [ownText, mine.text] },
      );
    const target = head.body.size;
    const start = { batches: this.applied.batches, updates: this.applied.updates };
    let after = own.batch;
    let afterPart: number | undefined;
    let pending: ConsistencyLink[] = [];
    const deadline = Date.now() + (this.opts.pendingWaitMs ?? 300_000);
    while (own.batch < target) {
      if (this.stopping) throw new Stopped();
      const url = `${this.base}/v1/consistency?from=${own.batch}&to=${target}&limit=${this.opts.pageBatches ?? 16}${after !== own.batch || afterPart !== undefined ? `&after=${after}` : ""}${afterPart !== undefined ? `&after_part=${afterPart}` : ""}`;
      const a = await boundedGet(url, this.bounds(PAGE_BYTES), (ms) => this.pause(ms));
      if (a.status === 202) {
        const s = Math.min(30, Math.max(1, Number(a.headers.get("retry-after") ?? "2") || 2));
        if (Date.now() + s * 1000 > deadline)
          throw new MirrorError(
            "MIRROR_PENDING",
            `${url}: the primary's block of batch ${after + 1} is still being proved after ${Math.round((this.opts.pendingWaitMs ?? 300_000) / 1000)} s`,
          );
        await this.pause(s * 1000);
        continue;
      }
      if (a.status !== 200) throw unexpected(url, a);
      const page = jsonObject(url, a);
      if (!Array.isArray(page.links) || page.links.length === 0)
        throw new MirrorError("MIRROR_NOT_REGISTRY", `${url}: the answer holds no links`);
      for (const link of page.links as ConsistencyLink[]) {
        pending.push(link);
        const complete =
          link === null ||
          typeof link !== "object" ||
          link.parts === undefined ||
          (typeof link.part === "number" && link.part + 1 >= link.parts);
        if (!complete) continue;
        await this.applyBatch(pending, target, head);
        pending = [];
        own = this.store.head();
        if (this.stopping) throw new Stopped();
      }
      const next = page.next;
      if (next === null || next === undefined) break;
      const nextPart = page.next_part;
      const forward =
        typeof next === "number" &&
        Number.isInteger(next) &&
        next <= target &&
        (nextPart === undefined || (Number.isInteger(nextPart) && (nextPart as number) >= 0)) &&
        (next > after ||
          (next === after && nextPart !== undefined && (afterPart === undefined || (nextPart as number) > afterPart)));
      if (!forward)
        throw new MirrorError(
          "MIRROR_NOT_REGISTRY",
          `${url}: the answer's next (${JSON.stringify(next)}) does not go forward`,
        );
      after = next as number;
      afterPart = nextPart as number | undefined;
    }
    if (pending.length > 0 || this.store.head().batch !== target)
      throw this.evidence(
        new MirrorError(
          "MIRROR_BAD_CHAIN",
          `the chain to size ${target} ended at size ${this.store.head().batch}${pending.length > 0 ? " inside a batch proved in parts" : ""} (a gap)`,
          { check: "CHAIN_END" },
        ),
        { checkpoints: [this.rows.checkpoint(this.store.head().batch)!, head.text], links: pending },
      );
    this.behindSince = undefined;
    return {
      batches: this.applied.batches - start.batches,
      updates: this.applied.updates - start.updates,
      size: this.store.head().batch,
      target,
    };
  }

  /** Verifies one batch's links between the checkpoints around it, then applies it. */
  private async applyBatch(
    links: ConsistencyLink[],
    target: number,
    head: { text: string; body: CheckpointBody },
  ): Promise<void> {
    const own = this.store.head();
    const fromText = this.rows.checkpoint(own.batch)!;
    const b = own.batch + 1;
    const first = links[0] as Partial<ConsistencyLink> | null;
    const batch = first !== null && typeof first === "object" && typeof first.batch === "number" ? first.batch : b;
    if (batch > target)
      throw this.evidence(
        new MirrorError("MIRROR_BAD_CHAIN", `the chain goes past size ${target} (batch ${batch})`, {
          check: "CHAIN_END",
        }),
        { checkpoints: [fromText, head.text], links },
      );
    // the checkpoint of the batch the links claim (a later one: the chain skips batches, a gap)
    const to = batch === target ? head : await this.checkpoint(Math.max(b, Math.min(batch, target)));
    if (to.body.size === target && to !== head && !digestEquals(to.body.root, head.body.root))
      throw this.evidence(
        new MirrorError(
          "MIRROR_FORK",
          `two signed checkpoints of size ${target} with different roots: ${formatRoot(head.body.root)} and ${formatRoot(to.body.root)}`,
          { check: "CHECKPOINT_FORK", size: target },
        ),
        { checkpoints: [head.text, to.text] },
      );
    // each block.json and proof decoded once, for the check, the updates and the stored proofs;
    // the evidence keeps the links as the primary served them
    const decoded = decodedLinks(links);
    // what each block was checked against: its updates are applied with those keys and new leaves
    const verified: (VerifiedV3Block | undefined)[] = decoded.map(() => undefined);
    const v = verifyConsistency(
      { from: { size: own.batch, root: own.root }, to: { size: to.body.size, root: to.body.root } },
      decoded,
      { onBlock: (i, block) => (verified[i] = block) },
    );
    if (!v.ok)
      throw this.evidence(
        new MirrorError("MIRROR_BAD_CHAIN", `batch ${b}: ${v.code}: ${v.reason}`, { check: v.code, batch: b }),
        { checkpoints: [fromText, to.text], links },
      );
    // each block as its check parsed it (read again only for a link with no verified block)
    const blocks = decoded.map((l, i): BlockJson | undefined => {
      const d = verified[i]?.description;
      return d === undefined
        ? linkBlocks([l])[0]
        : { depth: d.depth, leaf_max_fields: d.leafMaxFields, updates: d.updates as unknown[] };
    });
    for (const d of blocks) {
      if (d === undefined) continue;
      if (d.depth !== this.store.config.depth || d.leaf_max_fields !== this.store.config.leafMaxFields)
        throw this.evidence(
          new MirrorError(
            "MIRROR_BAD_CHAIN",
            `batch ${b}: a block of depth ${String(d.depth)} and leaf bound ${String(d.leaf_max_fields)}, not the mirror's ${this.store.config.depth} and ${this.store.config.leafMaxFields}`,
            { check: "BLOCK_JSON", batch: b },
          ),
          { checkpoints: [fromText, to.text], links },
        );
    }
    let n: number;
    try {
      n = applyVerifiedBatch(
        this.rows,
        { batch: b, links: decoded, blocks, checkpoint: to.text, root: to.body.root, verified },
        this.index,
      );
    } catch (e) {
      if (e instanceof MirrorError) throw this.evidence(e, { checkpoints: [fromText, to.text], links });
      throw e;
    }
    this.applied.batches++;
    this.applied.updates += n;
  }

  /** Writes the evidence of a halting error to a file and returns the error. */
  private evidence(
    err: MirrorError,
    what: { checkpoints: readonly string[]; links?: readonly ConsistencyLink[] },
  ): MirrorError {
    const dir = this.opts.evidenceDir ?? `${this.opts.db}.evidence`;
    const at = new Date().toISOString();
    const file = join(dir, `${at.replace(/[:.]/g, "-")}-${err.code}.json`);
    let written: string | undefined;
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = `${file}.tmp`;
      writeFileSync(
        tmp,
        JSON.stringify(
          {
            code: err.code,
            message: err.message,
            details: { ...err.details, note: undefined },
            at,
            primary: this.base,
            verifier_key: this.key.text,
            mirror: { size: this.store.head().batch, root: formatRoot(this.store.head().root) },
            checkpoints: what.checkpoints,
            links: what.links ?? [],
          },
          null,
          2,
        ) + "\n",
      );
      renameSync(tmp, file);
      written = file;
    } catch {
      written = undefined;
    }
    const { note: _note, ...details } = err.details;
    return new MirrorError(err.code, err.message, { ...details, ...(written ? { evidence: written } : {}) });
  }

  private halt(e: MirrorError): void {
    const evidence = typeof e.details.evidence === "string" ? e.details.evidence : undefined;
    this.halted = {
      code: e.code,
      message: e.message,
      at: new Date().toISOString(),
      ...(evidence !== undefined ? { evidence } : {}),
    };
  }

  /**
   * Asks the round under way to end after the batch it is applying (each batch is applied in
   * one transaction: the mirror resumes there), without waiting out a pause for blocks still
   * being proved or a primary's `Retry-After`; later rounds return at once. A request under way
   * still ends within its time bound.
   */
  stop(): void {
    this.stopping = true;
    this.wakePause?.();
  }

  /** Whether `stop()` was called. */
  get stopRequested(): boolean {
    return this.stopping;
  }

  /** Waits `ms`, or less when `stop()` is called. @throws Stopped once stopped. */
  private async pause(ms: number): Promise<void> {
    if (this.stopping) throw new Stopped();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wakePause?.(), ms);
      this.wakePause = () => {
        clearTimeout(timer);
        this.wakePause = undefined;
        resolve();
      };
    });
    if (this.stopping) throw new Stopped();
  }

  /** Closes the registry and lets another process mirror into its folder. */
  close(): void {
    this.store.closeSync();
    this.hold.release();
  }
}

/**
 * A checkpoint checked with the key: its signature, and its origin the key's name.
 * @throws MirrorError `MIRROR_BAD_SIGNATURE`, `MIRROR_WRONG_ORIGIN`; `MIRROR_NOT_REGISTRY` for a text
 *   that is no signed checkpoint.
 */
export function verifiedCheckpoint(text: string, key: VerifierKey, url: string): CheckpointBody {
  const c = verifyCheckpoint(text, key, "--key");
  if (!c.ok && c.code === "CHECKPOINT_MALFORMED")
    throw new MirrorError("MIRROR_NOT_REGISTRY", `${url}: not a signed checkpoint (${c.reason})`.slice(0, 500), {
      check: c.code,
    });
  if (!c.ok)
    throw new MirrorError("MIRROR_BAD_SIGNATURE", `${url}: ${c.code}: ${c.reason}`.slice(0, 500), { check: c.code });
  if (c.origin !== key.name)
    throw new MirrorError(
      "MIRROR_WRONG_ORIGIN",
      `${url}: a checkpoint of origin ${JSON.stringify(c.origin.slice(0, 200))}, not ${JSON.stringify(key.name)} (the --key's)`,
      { origin: c.origin },
    );
  return { origin: c.origin, size: c.size, root: c.root as Digest };
}
